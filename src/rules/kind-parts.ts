/**
 * What a family of alert kinds gives the renderers (its labels and its rendering parts), and the
 * small formatting kit the families build them with. Everything returned is plain, unescaped text:
 * each renderer escapes for its own markup. Pure (no I/O, no clock).
 */
import type { AlertKind, AlertOf } from '../model/alert.ts';
import type { LowPointFacts, ReviewFacts } from '../model/alert-facts.ts';
import { spokenDuration } from '../util/duration.ts';
import { groupDigits, money, rank, stars } from '../util/format.ts';
import { localTime } from '../util/local-time.ts';
import { formatMinor } from '../util/money.ts';
import { oneLine } from '../util/one-line.ts';

export interface FactRow {
  label: string;
  /** Plain text; may hold untrusted text (book titles, keywords, error text). */
  value: string;
}

/** One kind's parts: every renderer (chat, email, webhook, digest, console) reads a kind through these. */
export interface KindParts<K extends AlertKind> {
  /** What a header calls one alert of the kind: `Best-seller rank worsened`. */
  label: string;
  /** One and many, for a subject that counts kinds: `new review`, `new reviews`. */
  noun: readonly [one: string, many: string];
  /** Details beyond the title for chat channels (Slack, Discord, Teams, Telegram, ntfy, plain text). */
  rows(alert: AlertOf<K>, timeZone: string, locale?: string): FactRow[];
  /** The rows an email shows (every one, a dash for a missing fact). */
  emailRows(alert: AlertOf<K>, timeZone: string, locale?: string): FactRow[];
  /** Kinds about one review: its facts, whose text each renderer shows (and may hide as low-star). */
  review?: (alert: AlertOf<K>) => ReviewFacts;
  /** What the alert's `series` is, when the kind has one (default: ranks, taller = better). */
  seriesLabel?: string;
  /**
   * Kinds about a rank of the book: which rank (the console marks the alert on that rank's chart)
   * and how a firing alert of the kind leaves it (`down`: dropped or gone; `clear`: back).
   */
  rank?: RankEffect;
}

export interface RankEffect {
  of: 'bsr' | 'keyword';
  leaves: 'down' | 'clear';
}

/** The registry's shape: every kind, each with the parts of its own facts. */
export type KindTable = { [K in AlertKind]: KindParts<K> };

/** A family's share of the table. */
export type FamilyParts<K extends AlertKind> = { [P in K]: KindParts<P> };

// ---- chat rows -------------------------------------------------------------------------------

/** A non-empty string, else undefined. */
export const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** A finite number, else undefined. */
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
export const rankOf = (v: unknown): string => rank(num(v) ?? null);
export const count = (v: unknown): string | undefined => {
  const n = num(v);
  return n === undefined ? undefined : groupDigits(n);
};
export const cash = (v: unknown, currency: unknown): string | undefined => {
  const n = num(v);
  const c = text(currency);
  return n === undefined || c === undefined ? undefined : money(n, c);
};
export const PROVISIONAL_TEXT = 'provisional: may still be revised for 14 days';

/** Rows from `fill`; a missing value drops its row, a line break in a value does not start a row. */
export function rows(fill: (add: (label: string, value: string | undefined) => void) => void): FactRow[] {
  const out: FactRow[] = [];
  fill((label, value) => {
    if (value !== undefined) out.push({ label, value: oneLine(value) });
  });
  return out;
}

/** How low a recovered rank went: undefined when the episode was stored before it was tracked. */
export function lowPointText(facts: LowPointFacts): string | undefined {
  if (facts.lowPointUnranked === true) return 'unranked';
  const low = num(facts.lowPoint);
  return low === undefined ? undefined : rank(low);
}

/** When a recovered condition started and how long it lasted: `from 25 Nov 2026, 09:00 CET for 5 h 20 min`. */
export function downSpanText(
  downForMs: number | undefined,
  startMs: number | null | undefined,
  timeZone: string,
  locale?: string,
): string | undefined {
  const lasted = num(downForMs);
  if (lasted === undefined) return undefined;
  const since = localTime(startMs, timeZone, locale);
  return `${since === undefined ? '' : `from ${since} `}for ${spokenDuration(lasted)}`;
}

// ---- email rows ------------------------------------------------------------------------------

export const MAX = { body: 2_000, reviewTitle: 300, title: 500, value: 300 } as const;

/** Cuts to at most `max` UTF-16 units including the ellipsis, never between a surrogate pair. */
export function truncateText(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - 1);
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…`;
}

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A fact as an email shows it: a dash for nothing, `yes`/`no`, grouped numbers, cut text. */
export function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'number') return numberFormat.format(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return truncateText(String(value), MAX.value);
}
export const emailRank = (v: unknown): string =>
  typeof v === 'number' ? `#${numberFormat.format(v)}` : 'unranked';
export const emailMoney = (v: unknown, currency: unknown): string =>
  typeof v === 'number' && typeof currency === 'string' ? `${formatMinor(v, currency)} ${currency}` : '—';
export const change = (before: string, after: string): string => `${before} → ${after}`;
/** In the message's zone, with the zone shown (a bare epoch read "1,795,603,415,000"). */
export const time = (ms: unknown, timeZone: string, locale?: string): string =>
  localTime(ms, timeZone, locale) ?? '—';
export const showStars = (rating: unknown): string =>
  typeof rating === 'number' ? `${stars(rating)} (${show(rating)}/5)` : show(rating);
/** Provisional figures in words: "yes" under "Provisional" read like a setting. */
export const showProvisional = (provisional: boolean | undefined): string =>
  provisional === true ? PROVISIONAL_TEXT : 'final';

/** Email rows from label/value pairs. */
export function emailRows(...pairs: readonly (readonly [string, string])[]): FactRow[] {
  return pairs.map(([label, value]) => ({ label, value }));
}
