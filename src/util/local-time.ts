import { formatterPerZone } from './zoned-time.ts';

/**
 * Times as people read them: in the channel's (or workspace's) zone, with the zone shown, never a
 * bare epoch number nor UTC for a reader in Berlin. en-GB gives "CET"/"CEST" where a zone has a
 * common abbreviation and "GMT+5:30"-style offsets elsewhere, and a 24-hour clock.
 */
const OPTIONS: Intl.DateTimeFormatOptions = {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
};
export const DEFAULT_LOCALE = 'en-GB';
const byLocale = new Map<string, (timeZone: string) => Intl.DateTimeFormat>();

function formatIn(timeZone: string, locale: string): Intl.DateTimeFormat {
  let perZone = byLocale.get(locale);
  if (perZone === undefined) {
    perZone = formatterPerZone(locale, OPTIONS);
    byLocale.set(locale, perZone);
  }
  return perZone(timeZone);
}

/**
 * `25 Nov 2026, 14:03 CET`; undefined for a missing or non-finite time. A reader's `locale` (a
 * person's, a channel's) orders and names the parts: `25. Nov. 2026, 14:03 MEZ` in de-DE.
 */
export function localTime(ms: unknown, timeZone = 'UTC', locale = DEFAULT_LOCALE): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return undefined;
  return formatIn(timeZone, locale).format(ms);
}
