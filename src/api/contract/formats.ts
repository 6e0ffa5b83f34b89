/**
 * Value formats, read (API → canonical) and written (canonical → API, for the simulator). A reader
 * returns FAIL for a value it cannot read; what was there is reported by the caller.
 */
import { minorDigits } from '../../util/money.ts';
import type { FieldKind } from './catalog.ts';

export const FAIL: unique symbol = Symbol('contract.fail');
export type Read = (value: unknown) => unknown;
export type Write = (value: unknown) => unknown;

export type UnrankedValue = null | number | 'missing';

/** ISO text without the `.000` a whole second gets from toISOString (the canonical form). */
export function isoFromMs(ms: number): string {
  const text = new Date(ms).toISOString();
  return text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;
const CANONICAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function msFromEpoch(value: unknown, scale: number): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const ms = value * scale;
  return Math.abs(ms) <= 8.64e15 ? ms : undefined;
}

function msFromIso(value: unknown): number | undefined {
  if (typeof value !== 'string' || !ISO_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Epoch formats: how many ms one unit is. `epoch` (a day) moves the count's start. */
const EPOCH_UNIT_MS: Readonly<Record<string, number>> = { epoch_s: 1000, epoch_ms: 1, epoch_min: 60_000 };

export function readTime(format: string, epochMs = 0): Read {
  const unit = EPOCH_UNIT_MS[format];
  if (unit !== undefined) {
    return (v) => {
      const ms = msFromEpoch(v, unit);
      return ms === undefined ? FAIL : isoFromMs(ms + epochMs);
    };
  }
  // Already UTC with a Z: kept as sent (no re-formatting per point); any other offset is converted.
  return (v) => {
    if (typeof v === 'string' && CANONICAL_UTC.test(v)) return v;
    const ms = msFromIso(v);
    return ms === undefined ? FAIL : isoFromMs(ms);
  };
}

export function writeTime(format: string, epochMs = 0): Write {
  const unit = EPOCH_UNIT_MS[format];
  if (unit === undefined) return (v) => v;
  return (v) => Math.floor((Date.parse(String(v)) - epochMs) / unit);
}

export function readDate(format: string, epochMs = 0): Read {
  if (format === 'date') return (v) => (typeof v === 'string' && ISO_DATE.test(v) ? v : FAIL);
  const time = readTime(format, epochMs);
  return (v) => {
    const iso = time(v);
    return iso === FAIL ? FAIL : (iso as string).slice(0, 10);
  };
}

export function writeDate(format: string, epochMs = 0): Write {
  if (format === 'date') return (v) => v;
  if (format === 'iso') return (v) => `${String(v)}T00:00:00Z`;
  const time = writeTime(format, epochMs);
  return (v) => time(`${String(v)}T00:00:00Z`);
}

/** A sales day's state: `final` (true = final, the default), `provisional` (true = provisional) or `enum`. */
export function readFinality(format: string, map: Readonly<Record<string, string>>): Read {
  if (format === 'enum') {
    const table = new Map(Object.entries(map));
    return (v) => {
      const ours = typeof v === 'string' || typeof v === 'number' ? table.get(String(v)) : undefined;
      return ours === undefined ? FAIL : ours === 'final';
    };
  }
  const inverted = format === 'provisional';
  return (v) => (typeof v === 'boolean' ? v !== inverted : FAIL);
}

export function writeFinality(format: string, map: Readonly<Record<string, string>>): Write {
  if (format === 'enum') {
    const reverse = new Map(Object.entries(map).map(([theirs, ours]) => [ours, theirs]));
    return (v) => reverse.get(v === true ? 'final' : 'provisional');
  }
  const inverted = format === 'provisional';
  return (v) => v !== inverted;
}

/** Minor units (an integer) as a decimal string, by string arithmetic: no float rounding. */
function decimalFromMinor(minor: number, digits: number): string {
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Reads an amount in the given format into the canonical decimal string, given the currency. */
export function readAmount(format: string): (amount: unknown, currency: string) => string | typeof FAIL {
  switch (format) {
    case 'major_number':
      return (v, currency) =>
        typeof v === 'number' && Number.isFinite(v) ? v.toFixed(minorDigits(currency)) : FAIL;
    case 'minor_units':
      return (v, currency) =>
        typeof v === 'number' && Number.isSafeInteger(v) ? decimalFromMinor(v, minorDigits(currency)) : FAIL;
    default:
      return (v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? v : FAIL);
  }
}

export function writeAmount(format: string): (amount: string, currency: string) => unknown {
  switch (format) {
    case 'major_number':
      return (v) => Number(v);
    case 'minor_units':
      return (v, currency) => Math.round(Number(v) * 10 ** minorDigits(currency));
    default:
      return (v) => v;
  }
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** A number sent as text (`format: string`): "2541" → 2541; anything else FAIL. */
export function numberFromText(v: unknown): unknown {
  return typeof v === 'string' && NUMBER_TEXT.test(v) ? Number(v) : FAIL;
}

/**
 * Ranks and ratings: the listed values mean "none" (canonical null); anything else must be a number
 * (or, with `format: string`, a number as text, whose "none" values are compared as numbers).
 */
export function readRank(
  unranked: readonly UnrankedValue[],
  format = 'number',
): { read: Read; missingIsNone: boolean } {
  const none = new Set<unknown>(unranked.filter((u) => u !== 'missing'));
  const number =
    format === 'string' ? (v: unknown) => (v === null ? v : numberFromText(v)) : (v: unknown) => v;
  return {
    read: (raw) => {
      const v = number(raw);
      return none.has(v) ? null : typeof v === 'number' ? v : FAIL;
    },
    missingIsNone: unranked.includes('missing'),
  };
}

/** The value a "none" is written as; undefined = the field is left out. */
export function unrankedOut(unranked: readonly UnrankedValue[]): null | number | undefined {
  const first = unranked[0];
  return first === 'missing' || first === undefined ? undefined : first;
}

/** Enums: the API's value → ours; a wire value may be a number (Keepa's domain 1 = US), listed as "1". */
export function readEnum(map: Readonly<Record<string, string>>): Read {
  const table = new Map(Object.entries(map));
  return (v) =>
    typeof v === 'string'
      ? (table.get(v) ?? v)
      : typeof v === 'number'
        ? (table.get(String(v)) ?? FAIL)
        : FAIL;
}

/** Ours → the API's; an enum whose every wire value is a whole number is written as numbers. */
export function writeEnum(map: Readonly<Record<string, string>>): Write {
  const keys = Object.keys(map);
  const numeric = keys.length > 0 && keys.every((k) => /^\d+$/.test(k));
  const reverse = new Map(
    Object.entries(map).map(([theirs, ours]) => [ours, numeric ? Number(theirs) : theirs]),
  );
  return (v) => (typeof v === 'string' ? (reverse.get(v) ?? v) : v);
}

/** Plain kinds: the value must be of the JSON type; ranges are zod's to check afterwards. */
export function readPlain(kind: FieldKind): Read {
  switch (kind) {
    case 'string':
      return (v) => (typeof v === 'string' ? v : FAIL);
    case 'nullableString':
      return (v) => (typeof v === 'string' || v === null ? v : v === undefined ? null : FAIL);
    case 'int':
    case 'number':
      return (v) => (typeof v === 'number' ? v : FAIL);
    default:
      return (v) => v;
  }
}

/** How a found value is shown in a drift report: short, and never a whole object. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    return `an object with ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`;
  }
  return String(value);
}
