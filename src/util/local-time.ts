import { formatterPerZone } from './zoned-time.ts';

/**
 * Times as people read them: in the channel's (or workspace's) zone, with the zone shown, never a
 * bare epoch number nor UTC for a reader in Berlin. en-GB gives "CET"/"CEST" where a zone has a
 * common abbreviation and "GMT+5:30"-style offsets elsewhere, and a 24-hour clock.
 */
const formatIn = formatterPerZone('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

/** `25 Nov 2026, 14:03 CET`; undefined for a missing or non-finite time. */
export function localTime(ms: unknown, timeZone = 'UTC'): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return undefined;
  return formatIn(timeZone).format(ms);
}
