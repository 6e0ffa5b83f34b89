/**
 * What the config forms need of the revision store: the current revision (its number, its
 * document, which workspaces a file manages) and a conditional save. A form is drawn from one
 * revision and saved with `basedOn` = that revision, so a second person's save of the same
 * revision is a conflict, never a silent overwrite.
 */
import type { ShelfwatchConfig } from '../config/schema.ts';
import type { ConfigProblem } from '../config-kit/problems.ts';

/** The config as written (YAML's shape, before the schema's defaults): what a revision stores. */
export type ConfigDocument = Record<string, unknown>;

export interface EditableRevision {
  revision: number;
  document: ConfigDocument;
  /** The checked config of this revision, secrets resolved (for lookups, tests, the planner). */
  config: ShelfwatchConfig;
  /** The file a workspace is managed by (read-only in the console), or undefined. */
  fileOf(workspace: string): string | undefined;
  /** Whether a secret typed in a form can be stored (sealed); without the key only `${VAR}` references. */
  canSeal: boolean;
}

export interface SaveMeta {
  basedOn: number;
  /** The signed-in console user (the session's subject). */
  by: string;
  /** The client address the save came from. */
  from: string;
  /** What the change was, in a few words ("add book B0… to main"). */
  summary: string;
}

export type SaveResult =
  | { ok: true; revision: number }
  | { ok: false; problems: ConfigProblem[] }
  | { ok: false; conflict: { basedOn: number; current: number } };

export interface ConfigEditor {
  /** False while no revision is stored (the forms then say how to store the first). */
  hasRevision(): Promise<boolean>;
  current(): Promise<EditableRevision>;
  /** Validates the document with the config's schema and stores it as a new revision if `basedOn` is still current. */
  save(document: ConfigDocument, meta: SaveMeta): Promise<SaveResult>;
  /** The schema's verdict on a document without storing it (the cadence preview). */
  check(document: ConfigDocument): Promise<{ ok: true } | { ok: false; problems: ConfigProblem[] }>;
}

/**
 * The revision in force cannot be used in this process (a `${VAR}` or the sealing key missing from
 * its environment): the forms cannot draw it, and the console says why instead of failing.
 */
export class UnusableRevisionError extends Error {
  override readonly name = 'UnusableRevisionError';
  constructor(
    readonly revision: number,
    readonly problems: readonly ConfigProblem[],
  ) {
    super(`revision ${revision} cannot be used in this process`);
  }
}
