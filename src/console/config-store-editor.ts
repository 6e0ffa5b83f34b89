/**
 * The config forms over the revision store (src/revisions/): the current revision as the forms
 * see it, and a save as a console proposal (`via: 'console'`). Typed by the few members the forms
 * use, so the console depends on the store's API, not on its internals.
 */
import type { ShelfwatchConfig } from '../config/schema.ts';
import type { ConfigProblem } from '../config-kit/problems.ts';
import { RevisionUnusableError } from '../revisions/index.ts';
import {
  type ConfigDocument,
  type ConfigEditor,
  type EditableRevision,
  type SaveMeta,
  type SaveResult,
  UnusableRevisionError,
} from './config-editor.ts';

type Management = { by: 'file'; file: string } | { by: 'console' } | { by: string; file?: string };

/** What the forms use of `RevisionStore`. */
export interface RevisionStoreView {
  readonly canSeal: boolean;
  currentRev(): Promise<number>;
  current(): Promise<
    | { meta: { rev: number; managed: Management }; document: ConfigDocument; config: ShelfwatchConfig }
    | undefined
  >;
  propose(
    document: unknown,
    options: { basedOn: number; by: string; via: 'console'; from: string; dryRun?: boolean },
  ): Promise<
    | { outcome: 'stored'; meta: { rev: number } }
    | { outcome: 'unchanged'; meta: { rev: number } | undefined }
    | { outcome: 'dry-run' }
    | { outcome: 'problems'; problems: ConfigProblem[] }
    | { outcome: 'conflict'; basedOn: number; current: number; message: string }
    | { outcome: 'refused'; message: string }
  >;
}

/** The store holds no revision yet: the forms have nothing to edit (`config apply` stores the first). */
export class NoRevisionError extends Error {
  override readonly name = 'NoRevisionError';
}

export function storeEditor(store: RevisionStoreView): ConfigEditor {
  return {
    async hasRevision() {
      return (await store.currentRev()) > 0;
    },
    async current(): Promise<EditableRevision> {
      const current = await store.current().catch((error: unknown) => {
        if (error instanceof RevisionUnusableError)
          throw new UnusableRevisionError(error.rev, error.problems);
        throw error;
      });
      if (current === undefined) throw new NoRevisionError('no configuration revision is stored yet');
      const managed = current.meta.managed;
      const file = managed.by === 'file' && typeof managed.file === 'string' ? managed.file : undefined;
      return {
        revision: current.meta.rev,
        document: current.document,
        config: current.config,
        // The store manages the whole configuration by one owner: a file manages every workspace.
        fileOf: () => file,
        canSeal: store.canSeal,
      };
    },
    async save(document: ConfigDocument, meta: SaveMeta): Promise<SaveResult> {
      const result = await store.propose(document, {
        basedOn: meta.basedOn,
        by: meta.by,
        via: 'console',
        from: meta.from,
      });
      switch (result.outcome) {
        case 'stored':
          return { ok: true, revision: result.meta.rev };
        case 'unchanged':
          return { ok: true, revision: result.meta?.rev ?? meta.basedOn };
        case 'problems':
          return { ok: false, problems: result.problems };
        case 'conflict':
          return { ok: false, conflict: { basedOn: result.basedOn, current: result.current } };
        case 'refused':
          return { ok: false, problems: [{ path: '(config)', message: result.message }] };
        case 'dry-run':
          throw new Error('the store answered a save with a dry run');
      }
    },
    async check(document: ConfigDocument) {
      const basedOn = await store.currentRev();
      const result = await store.propose(document, {
        basedOn,
        by: 'console',
        via: 'console',
        from: '',
        dryRun: true,
      });
      return result.outcome === 'problems' ? { ok: false, problems: result.problems } : { ok: true };
    },
  };
}
