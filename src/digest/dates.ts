/**
 * Calendar dates in a recipient's IANA time zone. A local day is not always 24 hours (23 or 25
 * around daylight-saving changes), so nothing here adds or subtracts 24 h from a local midnight:
 * local dates come from Intl, day boundaries are searched for, and date arithmetic works on the
 * `YYYY-MM-DD` labels themselves (calendar days, which are zone-free).
 */

import { DAY_MS, HOUR_MS } from '../util/time-units.ts';
import { formatterPerZone, localDate, zonedParts } from '../util/zoned-time.ts';

/** The local wall-clock time (`HH:MM`) at an instant. */
export function localTime(ms: number, timeZone: string): string {
  const p = zonedParts(ms, timeZone);
  return `${p.hour}:${p.minute}`;
}

/** Calendar arithmetic on a date label: `2026-10-25` + 1 → `2026-10-26` (never through local time). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The dates from `from` to `to` inclusive, oldest first. */
export function dateRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) out.push(date);
  return out;
}

/** The digest's day: the recipient's local "yesterday" at `nowMs`. */
export function digestDay(nowMs: number, timeZone: string): string {
  return addDays(localDate(nowMs, timeZone), -1);
}

/**
 * The first instant (ms) whose local date is `date` or later. Local dates never go backwards as
 * time goes on, so a binary search over ±16 h around UTC midnight finds it, whatever the offset
 * and even where a zone skips midnight itself.
 */
export function localDayStart(date: string, timeZone: string): number {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  let lo = utcMidnight - 16 * HOUR_MS;
  let hi = utcMidnight + 16 * HOUR_MS;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (localDate(mid, timeZone) >= date) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** `[startMs, endMs)` of a local calendar day: 23, 24 or 25 hours long. */
export function localDayBounds(date: string, timeZone: string): { startMs: number; endMs: number } {
  return { startMs: localDayStart(date, timeZone), endMs: localDayStart(addDays(date, 1), timeZone) };
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-11-21` → `Sat 21 Nov`, without locale data so subjects are stable everywhere. */
export function dayLabel(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

const dayHourFormatter = formatterPerZone('en-GB', {
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** `24 Nov 06:00` in the digest's zone: chart hours and the times the digest's notes mention. */
export function dayHourLabel(ms: number, timeZone: string): string {
  const parts = dayHourFormatter(timeZone).formatToParts(ms);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('day')} ${get('month')} ${get('hour')}:${get('minute')}`;
}
