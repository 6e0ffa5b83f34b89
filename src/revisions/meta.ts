import type { Change } from './diff.ts';

/** Where a change came from: the console's forms, a CLI command, or a watched config file. */
export type Via = 'console' | 'cli' | 'file';

/**
 * Who owns the configuration: a file (the file is the truth: `run --config FILE` or
 * `config apply FILE`; the console shows it read-only, naming the file) or the console.
 */
export type Management = { readonly by: 'console' } | { readonly by: 'file'; readonly file: string };

export interface RevisionMeta {
  /** 1, 2, 3…: the history is linear, a revision's parent is always the one before. */
  readonly rev: number;
  readonly parent: number;
  /** When it was stored (ISO 8601, UTC). */
  readonly at: string;
  /** Who: a console user, a CLI user (`user@host`), a file watcher (`shelfwatch run on host`). */
  readonly by: string;
  readonly via: Via;
  /** From where: a file path, a console address, `rollback of 7`. */
  readonly from: string;
  /** What changed, one line (`+workspaces[acme].books[B0…], ~channels[team].webhookUrl`). */
  readonly summary: string;
  readonly changes: number;
  readonly managed: Management;
  /** Set on a rollback: the revision whose document this one repeats. */
  readonly rollbackOf?: number;
}

export function managementText(managed: Management): string {
  return managed.by === 'file' ? `file ${managed.file}` : 'console';
}

export function sameManagement(a: Management, b: Management): boolean {
  return a.by === b.by && (a.by === 'console' || a.file === (b as { file: string }).file);
}

export type { Change };
