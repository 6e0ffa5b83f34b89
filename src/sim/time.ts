/** Calendar helpers of the simulator. All in UTC, all on millisecond epoch numbers. */

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export function floorTo(ms: number, unit: number): number {
  return Math.floor(ms / unit) * unit;
}

export function ceilTo(ms: number, unit: number): number {
  return Math.ceil(ms / unit) * unit;
}

/** RFC 3339 with second precision, as the contract writes timestamps: `2026-11-21T14:00:00Z`. */
export function isoSeconds(ms: number): string {
  return `${new Date(floorTo(ms, SECOND)).toISOString().slice(0, 19)}Z`;
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** `YYYY-MM` of the UTC month, the quota's window name. */
export function monthKey(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

function validDay(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** `YYYY-MM-DD` to the epoch ms of its UTC midnight, or undefined for anything else (2026-02-30 too). */
export function parseDate(text: string): number | undefined {
  const m = DATE_RE.exec(text);
  if (m === null) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validDay(year, month, day)) return undefined;
  return Date.UTC(year, month - 1, day);
}

/** An RFC 3339 timestamp (with `Z` or a numeric offset) to epoch ms, or undefined. */
export function parseTimestamp(text: string): number | undefined {
  const m = TIMESTAMP_RE.exec(text);
  if (m === null) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (!validDay(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = m[8] ?? 'Z';
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59))
    return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
