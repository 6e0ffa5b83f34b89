/**
 * What one answer shows about a field beyond its place: which value says "no rank", whether a member
 * may be absent, a scale, a time's unit and epoch, a history's wire layout, a sales day's state and
 * marketplaces sent as numbers. Each is read from the values seen, never guessed; the caller says the
 * evidence in its notes. Pure.
 */
import type { FieldSpecObject } from '../../api/tooling.ts';
import { valueAt } from './probe-analyse.ts';

export type Sentinel = null | number | 'missing';

/** The order sentinels are written in, whatever order they were seen in. */
const SENTINEL_ORDER: readonly Sentinel[] = [null, 0, -1, 'missing'];

export function sortSentinels(seen: Iterable<Sentinel>): Sentinel[] {
  const set = new Set(seen);
  return SENTINEL_ORDER.filter((s) => set.has(s));
}

/**
 * What the items of a list say "no rank" with: a null, a 0 or a negative sentinel among numbers, or
 * the field absent from some items. Empty when nothing shows it (one object, all ranked).
 */
export function unrankedSeen(path: string, siblings: readonly unknown[]): Sentinel[] {
  const values = siblings.map((item) => valueAt(item, path));
  const out: Sentinel[] = [];
  if (values.some((v) => v === null)) out.push(null);
  const numbers = values
    .map((v) => (typeof v === 'string' ? Number(v) : v))
    .filter((v): v is number => typeof v === 'number');
  for (const sentinel of [0, -1]) if (numbers.includes(sentinel)) out.push(sentinel);
  if (values.length > 1 && values.some((v) => v === undefined) && values.some((v) => v !== undefined))
    out.push('missing');
  return out;
}

/** A member some items of a list have and others lack: it may be absent. */
export function absentFromSome(path: string, siblings: readonly unknown[]): boolean {
  if (siblings.length < 2) return false;
  const values = siblings.map((item) => valueAt(item, path));
  return values.some((v) => v === undefined) && values.some((v) => v !== undefined);
}

/** A rating above 5 is sent scaled: ×10 up to 50 (Keepa's 0–50), ×20 up to 100. */
export function ratingScale(path: string, siblings: readonly unknown[]): number | undefined {
  const numbers = siblings
    .map((item) => valueAt(item, path))
    .map((v) => (typeof v === 'string' ? Number(v) : v))
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const max = Math.max(0, ...numbers);
  if (max <= 5) return undefined;
  return max <= 50 ? 10 : max <= 100 ? 20 : undefined;
}

const KEEPA_EPOCH = '2011-01-01';

/**
 * A time's format from its value: ISO text (or a date), or a count whose size says its unit and
 * epoch: milliseconds, seconds, minutes since 1970, or minutes since 2011-01-01 (Keepa time), each
 * the one that lands the value in this century's working years.
 */
export function timeSpec(value: unknown, date: boolean): Pick<FieldSpecObject, 'format' | 'epoch'> {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n === 'number') {
    if (n >= 1e11) return { format: 'epoch_ms' };
    if (n >= 1e8) return { format: 'epoch_s' };
    if (n >= 2e7) return { format: 'epoch_min' };
    return { format: 'epoch_min', epoch: KEEPA_EPOCH };
  }
  return { format: date && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? 'date' : 'iso' };
}

/** Whether a value could be a time count (seconds, ms or minutes since 1970 or 2011). */
export function timeCount(value: unknown): boolean {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1e6;
}

/**
 * A history's wire layout: a list of objects or pairs as it is; a flat [t, v, t, v, …] list of
 * numbers; or an object keyed by time. Returns the layout and its items as pairs for the item fields.
 */
export function historyLayout(value: unknown): { layout?: 'flat' | 'keyed'; items: unknown[] } | undefined {
  if (Array.isArray(value)) {
    if (value.length >= 2 && value.length % 2 === 0 && value.every((v) => typeof v === 'number')) {
      const items: unknown[] = [];
      for (let i = 0; i < value.length; i += 2) items.push([value[i], value[i + 1]]);
      if (items.every((pair) => timeCount((pair as number[])[0]))) return { layout: 'flat', items };
    }
    return { items: value };
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k) && timeCount(k)))
      return { layout: 'keyed', items: entries.map(([k, v]) => [Number(k), v]) };
  }
  return undefined;
}

/** A sales day's state in a row's member: a boolean (final or provisional by its name) or a status word. */
export function finalitySpec(
  row: unknown,
  rows: readonly unknown[],
  taken: ReadonlySet<string>,
): { spec: FieldSpecObject; enums?: Record<string, 'final' | 'provisional'> } | undefined {
  if (typeof row !== 'object' || row === null) return undefined;
  for (const [key, value] of Object.entries(row)) {
    if (taken.has(key)) continue;
    if (typeof value === 'boolean' && /final|settled|confirmed/i.test(key))
      return { spec: { path: key, format: 'final' } };
    if (typeof value === 'boolean' && /provisional|estimated|pending|preliminary/i.test(key))
      return { spec: { path: key, format: 'provisional' } };
    if (typeof value === 'string') {
      const words = new Set(
        rows.map((r) => valueAt(r, key)).filter((v): v is string => typeof v === 'string'),
      );
      const states = [...words].map((w) => [w, stateOf(w)] as const);
      if (states.length > 0 && states.every(([, s]) => s !== undefined))
        return {
          spec: { path: key, format: 'enum' },
          enums: withOtherState(states as (readonly [string, 'final' | 'provisional'])[]),
        };
    }
  }
  return undefined;
}

/**
 * The words seen, and the other state's usual word in their casing when only one state was seen: a
 * week of sales days (probe's window) is all provisional on an API that keeps a day open 14 days,
 * and a FINAL read later without its entry would be drift.
 */
function withOtherState(
  states: readonly (readonly [string, 'final' | 'provisional'])[],
): Record<string, 'final' | 'provisional'> {
  const out: Record<string, 'final' | 'provisional'> = Object.fromEntries(states);
  const seen = new Set(states.map(([, s]) => s));
  const sample = states[0]?.[0] ?? '';
  const cased = (word: string) =>
    sample === sample.toUpperCase()
      ? word.toUpperCase()
      : /^[A-Z]/.test(sample)
        ? word.charAt(0).toUpperCase() + word.slice(1)
        : word;
  if (!seen.has('final')) out[cased('final')] = 'final';
  if (!seen.has('provisional')) out[cased('provisional')] = 'provisional';
  return out;
}

function stateOf(word: string): 'final' | 'provisional' | undefined {
  if (/^(final|settled|confirmed|closed)$/i.test(word)) return 'final';
  if (/^(provisional|estimated|pending|preliminary|open)$/i.test(word)) return 'provisional';
  return undefined;
}

/**
 * Keepa's domain ids (1 com, 2 co.uk, 3 de, 4 fr, 5 co.jp, 6 ca, 7 cn, 8 it, 9 es, 10 in, 11 com.mx,
 * 12 com.br, as the keepa Python client lists them; 13 com.au as Keepa's later lists add it; 7 is
 * not a marketplace of ours): offered when marketplaces come as small numbers, since nothing in an
 * answer says which number is which market, and said as a guess to check.
 */
export const KEEPA_DOMAINS: Readonly<Record<string, string>> = {
  '1': 'US',
  '2': 'UK',
  '3': 'DE',
  '4': 'FR',
  '5': 'JP',
  '6': 'CA',
  '8': 'IT',
  '9': 'ES',
  '10': 'IN',
  '11': 'MX',
  '12': 'BR',
  '13': 'AU',
};

/**
 * Amazon's marketplace ids (as the Selling Partner API documents them), for APIs that send them
 * instead of a country: offered when an answer says one of them, since those ids are fixed.
 */
export const AMAZON_MARKETPLACE_IDS: Readonly<Record<string, string>> = {
  ATVPDKIKX0DER: 'US',
  A2EUQ1WTGCTBG2: 'CA',
  A1AM78C64UM0Y8: 'MX',
  A2Q3Y263D00KWC: 'BR',
  A1F83G8C2ARO7P: 'UK',
  A1PA6795UKMFR9: 'DE',
  A13V1IB3VIYZZH: 'FR',
  APJ6JRA9NG5V4: 'IT',
  A1RKKUPIHCS9HS: 'ES',
  A1805IZSGTT6HS: 'NL',
  A1VC38T7YXB528: 'JP',
  A21TJRUUN4KGV: 'IN',
  A39IBJ37TRP1C6: 'AU',
};
