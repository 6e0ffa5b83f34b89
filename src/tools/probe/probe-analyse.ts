/**
 * What `probe` says about one recorded answer: for each logical field of the endpoint, whether the
 * contract finds it (found / missing / wrong type), the path it looked at and what was there, and
 * the places elsewhere in the answer whose name and type could be it. Pure: an answer in, rows out.
 */
import {
  type CompiledContract,
  describeFound,
  type EndpointName,
  FAIL,
  type FieldKind,
  type FieldNode,
  isForbiddenPart,
  joinPath,
  type ObjectNode,
  splitPath,
} from '../../api/tooling.ts';

/**
 * The value at a dotted path, following own properties only: `at` on a pair must not find
 * Array.prototype.at. Slower than the compiled getters; probe reads one answer.
 */
export function valueAt(value: unknown, path: string): unknown {
  let at = value;
  for (const part of splitPath(path)) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** A rank or rating may be absent because the contract says "missing" means no rank. */
const MAY_BE_ABSENT = new Set<FieldKind>(['rank', 'rating']);

/** Whether the contract's field reads in `container`: read, and present unless absence can mean something. */
export function fieldFits(field: FieldNode, container: unknown): boolean {
  if (typeof container !== 'object' || container === null) return false;
  if (field.read(container) === FAIL) return false;
  return valueAt(container, field.rawPath) !== undefined || MAY_BE_ABSENT.has(field.kind);
}

import type { RecordedAnswer } from './probe-answer.ts';
import { expanded, words } from './probe-names.ts';

export type { PageFinding, RecordedAnswer } from './probe-answer.ts';
export { expanded, words } from './probe-names.ts';

export type FieldStatus = 'found' | 'missing' | 'wrong type';

export interface FieldRow {
  /** `bsrRank`, or `keywords[].rank` for a field of a list item. */
  field: string;
  kind: FieldKind;
  status: FieldStatus;
  /** Where the contract looked, from the top of the answer. */
  path: string;
  found: string;
  /** Other paths (relative to the same object) whose name and type could be this field, best first. */
  candidates: string[];
}

const ISO_LIKE = /^\d{4}-\d{2}-\d{2}/;
const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

/** Whether a value could be a field of this kind under some format the contract can say. */
export function fitsKind(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
    case 'platform':
    case 'inviteStatus':
      return typeof value === 'string';
    case 'marketplace':
      // Some APIs number their markets (Keepa's domain ids).
      return (
        typeof value === 'string' ||
        (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 100)
      );
    case 'nullableString':
      return typeof value === 'string' || value === null;
    case 'int':
    case 'number':
      return typeof value === 'number' || (typeof value === 'string' && NUMERIC_TEXT.test(value));
    case 'rank':
    case 'rating':
      // Below 1e8: a timestamp beside a rank is not the rank.
      return (
        value === null ||
        (typeof value === 'number' && value < 1e8) ||
        (typeof value === 'string' && NUMERIC_TEXT.test(value) && Number(value) < 1e8)
      );
    case 'time':
    case 'date':
      // A count of seconds, milliseconds or minutes (Keepa's minutes since 2011 are about 8.5 million).
      return (
        (typeof value === 'string' && (ISO_LIKE.test(value) || /^\d{7,}$/.test(value))) ||
        (typeof value === 'number' && Number.isInteger(value) && value > 1e6)
      );
    case 'money':
      return (
        typeof value === 'number' ||
        (typeof value === 'string' && NUMERIC_TEXT.test(value)) ||
        (typeof value === 'object' && value !== null && !Array.isArray(value))
      );
    case 'list':
      // An object keyed by time is a list too (layout: keyed).
      return (
        Array.isArray(value) ||
        (typeof value === 'object' &&
          value !== null &&
          Object.keys(value).length > 0 &&
          Object.keys(value).every((k) => /^\d{7,}$/.test(k)))
      );
    case 'finality':
      return typeof value === 'boolean' || typeof value === 'string' || typeof value === 'number';
  }
}

/** Every path below `value` (objects walked, a list is a leaf; pairs' places as digits), depth-bounded. */
export function leaves(value: unknown, depth = 4, prefix = ''): { path: string; value: unknown }[] {
  if (typeof value !== 'object' || value === null) return [];
  const out: { path: string; value: unknown }[] = [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [key, child] of entries) {
    // An answer may carry "__proto__" as an own key (JSON.parse does that): never a path to suggest.
    if (isForbiddenPart(key)) continue;
    const path = joinPath(prefix, key);
    out.push({ path, value: child });
    if (depth > 1 && typeof child === 'object' && child !== null && !Array.isArray(child))
      out.push(...leaves(child, depth - 1, path));
  }
  return out;
}

/** Paths in `container` whose name shares a word with the field and whose value fits its kind. */
export function candidatesFor(
  name: string,
  kind: FieldKind,
  container: unknown,
  exclude: ReadonlySet<string> = new Set(),
): string[] {
  const own = new Set(words(name));
  const wanted = expanded(name);
  // A word of the field's own name counts twice a synonym's; the last part of the path counts again.
  const weigh = (ws: readonly string[]) =>
    ws.reduce((sum, w) => sum + (own.has(w) ? 2 : wanted.has(w) ? 1 : 0), 0);
  const scored: { path: string; score: number }[] = [];
  const pair = Array.isArray(container);
  for (const leaf of leaves(container)) {
    if (exclude.has(leaf.path) || !fitsKind(kind, leaf.value)) continue;
    // In a pair the places have no names: the type is all there is.
    const score = pair
      ? 1
      : weigh(words(leaf.path.split('.').slice(-2).join('.'))) +
        weigh(words(leaf.path.split('.').at(-1) ?? ''));
    if (score > 0) scored.push({ path: leaf.path, score });
  }
  // No name in common: what fits the type is all there is (a point's `t` for its time).
  if (scored.length === 0)
    return leaves(container)
      .filter((leaf) => !exclude.has(leaf.path) && fitsKind(kind, leaf.value))
      .map((leaf) => leaf.path);
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return scored.map((s) => s.path);
}

function fieldRows(node: ObjectNode, container: unknown, rawPrefix: string, prefix: string): FieldRow[] {
  const rows: FieldRow[] = [];
  const used = new Set(node.fields.map((f) => f.rawPath));
  for (const field of node.fields) rows.push(...rowsOf(field, container, rawPrefix, prefix, used));
  return rows;
}

function rowsOf(
  field: FieldNode,
  container: unknown,
  rawPrefix: string,
  prefix: string,
  used: ReadonlySet<string>,
): FieldRow[] {
  const name = prefix === '' ? field.name : `${prefix}.${field.name}`;
  const value = valueAt(container, field.rawPath);
  const status: FieldStatus = fieldFits(field, container)
    ? 'found'
    : value === undefined
      ? 'missing'
      : 'wrong type';
  const path = joinPath(rawPrefix, field.rawPath) || '(root)';
  const candidates =
    status === 'found'
      ? []
      : candidatesFor(
          field.name,
          field.kind,
          container,
          new Set([...used].filter((p) => p !== field.rawPath)),
        );
  const row: FieldRow = {
    field: name,
    kind: field.kind,
    status,
    path,
    found: describeFound(value),
    candidates,
  };
  if (field.items === undefined) return [row];
  // A list: its item fields are read in the first item, at the path the contract says or, failing
  // that, in the best candidate list, so one wrong list name does not hide its items' report.
  const list = Array.isArray(value)
    ? value
    : (() => {
        const first = candidates[0];
        const alt = first === undefined ? undefined : valueAt(container, first);
        return Array.isArray(alt) ? alt : undefined;
      })();
  const listPath = Array.isArray(value) ? path : joinPath(rawPrefix, candidates[0] ?? field.rawPath);
  const item = list?.[0];
  if (item === undefined) return [row];
  return [row, ...fieldRows(field.items, item, `${listPath}[0]`, `${name}[]`)];
}

export interface EndpointAnalysis {
  endpoint: EndpointName;
  status: number;
  /** Where the object (or the list) was looked for, and whether it was there. */
  container: { path: string; found: string; ok: boolean };
  rows: FieldRow[];
  /** True when every field was found. */
  fits: boolean;
}

/** The object (or the first item of the list) of an answer, at `root` (a list endpoint's `items`). */
export function containerAt(body: unknown, root: string, list: boolean): { value: unknown; ok: boolean } {
  const at = valueAt(body, root);
  if (!list) return { value: at, ok: typeof at === 'object' && at !== null && !Array.isArray(at) };
  return { value: Array.isArray(at) ? at[0] : undefined, ok: Array.isArray(at) };
}

/** The conformance of one answer to the contract; `root` overrides where the object/list is. */
export function analyseAnswer(
  contract: CompiledContract,
  answer: RecordedAnswer,
  list: boolean,
  root: string = contract.roots[answer.endpoint],
): EndpointAnalysis {
  const node = contract.nodes[answer.endpoint];
  const { value, ok } = containerAt(answer.body, root, list);
  const prefix = list ? `${root || '(root)'}[0]` : root;
  const rows =
    ok && value !== undefined ? fieldRows(node, value, prefix === '(root)[0]' ? '[0]' : prefix, '') : [];
  return {
    endpoint: answer.endpoint,
    status: answer.status,
    container: { path: root || '(root)', found: describeFound(valueAt(answer.body, root)), ok },
    rows,
    fits: ok && rows.every((r) => r.status === 'found'),
  };
}
