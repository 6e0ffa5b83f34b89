/**
 * The readable difference between two documents: one line per added, removed or changed place.
 * Lists of items with an `id` (workspaces, channels, campaigns) or an `asin` (books) are matched
 * by it, so adding a book reads as one added book rather than every later index changing.
 * Sealed secrets are shown as `[secret]` (a changed secret is still said to have changed).
 */

import { isObject, type Json, mapText, sameJson } from './document.ts';
import { isSealed, SECRET_SHOWN } from './sealing.ts';

export interface Change {
  readonly kind: 'added' | 'removed' | 'changed';
  /** Where, e.g. `workspaces[acme].books[B0TESTBOOK]` (list items named by their id or ASIN). */
  readonly path: string;
  /** The value before (changed, removed) and after (changed, added), as compact JSON with secrets hidden. */
  readonly before?: string;
  readonly after?: string;
}

/** A value as a person may see it: sealed secrets replaced by `[secret]`. */
export function shown(value: Json): Json {
  return mapText(value, (text) => (isSealed(text) ? SECRET_SHOWN : text));
}

function render(value: Json): string {
  const text = JSON.stringify(shown(value));
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function identity(item: Json): string | undefined {
  if (!isObject(item)) return undefined;
  const id = item.id ?? item.asin;
  return typeof id === 'string' ? id : undefined;
}

function keyedOf(items: Json[]): Map<string, Json> | undefined {
  const out = new Map<string, Json>();
  for (const item of items) {
    const id = identity(item);
    if (id === undefined || out.has(id)) return undefined;
    out.set(id, item);
  }
  return out;
}

function join(path: string, part: string | number, keyed = false): string {
  if (typeof part === 'number' || keyed) return `${path}[${part}]`;
  return path === '' ? part : `${path}.${part}`;
}

function walk(before: Json | undefined, after: Json | undefined, path: string, out: Change[]): void {
  if (sameJson(before, after)) return;
  const at = path === '' ? '(top level)' : path;
  if (before === undefined) {
    out.push({ kind: 'added', path: at, after: render(after as Json) });
    return;
  }
  if (after === undefined) {
    out.push({ kind: 'removed', path: at, before: render(before) });
    return;
  }
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    for (const key of keys) walk(before[key], after[key], join(path, key), out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const a = keyedOf(before);
    const b = keyedOf(after);
    if (a !== undefined && b !== undefined && (a.size > 0 || b.size > 0)) {
      for (const [id, item] of a) walk(item, b.get(id), join(path, id, true), out);
      for (const [id, item] of b) if (!a.has(id)) walk(undefined, item, join(path, id, true), out);
      return;
    }
    // Plain lists (marketplaces, keywords, channel ids) read best as a whole.
  }
  out.push({ kind: 'changed', path: at, before: render(before), after: render(after) });
}

export function diffDocuments(before: Json | undefined, after: Json | undefined): Change[] {
  const out: Change[] = [];
  walk(before, after, '', out);
  return out;
}

/** `+ path: value`, `- path: value`, `~ path: before → after`, one a line. */
export function diffText(changes: readonly Change[]): string {
  if (changes.length === 0) return 'no changes';
  return changes
    .map((change) =>
      change.kind === 'added'
        ? `+ ${change.path}: ${change.after}`
        : change.kind === 'removed'
          ? `- ${change.path}: ${change.before}`
          : `~ ${change.path}: ${change.before} → ${change.after}`,
    )
    .join('\n');
}

/** One line for the history: the first places changed, and how many more. */
export function summaryOf(changes: readonly Change[]): string {
  if (changes.length === 0) return 'no changes';
  const sign = { added: '+', removed: '-', changed: '~' } as const;
  const first = changes.slice(0, 3).map((change) => `${sign[change.kind]}${change.path}`);
  const more = changes.length > 3 ? ` and ${changes.length - 3} more` : '';
  return `${first.join(', ')}${more}`;
}
