/**
 * One BullMQ job scheduler per digest recipient on the `digest` queue: a cron pattern from
 * `digest.time` in the recipient's IANA time zone. Daylight saving is cron-parser's job (through
 * BullMQ): 08:00 stays 08:00 local on both sides of a change.
 */
import { getNextMillis } from 'bullmq';
import type { ShelfwatchConfig } from '../config/schema.ts';

/** Ids only: BullMQ stores job data in plain text, so no address, URL or secret goes here. */
export interface DigestJobData {
  workspace: string;
  channel: string;
}

export interface DesiredDigestSchedule {
  schedulerId: string;
  pattern: string;
  tz: string;
  data: DigestJobData;
}

/** `08:30` → `30 8 * * *`. */
export function digestPattern(time: string): string {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(time);
  if (match === null) throw new RangeError(`digest time must be HH:MM, got "${time}"`);
  return `${Number(match[2])} ${Number(match[1])} * * *`;
}

/** Workspace and channel ids are `[a-z0-9-]`, so this never holds a ":" (BullMQ forbids it). */
export function digestSchedulerId(workspace: string, channel: string): string {
  return `digest.${workspace}.${channel}`.replaceAll(':', '_');
}

/** One schedule per (workspace, channel) recipient while the digest is enabled; none otherwise. */
export function desiredDigestSchedules(config: ShelfwatchConfig): DesiredDigestSchedule[] {
  if (!config.digest.enabled) return [];
  const pattern = digestPattern(config.digest.time);
  const byId = new Map<string, DesiredDigestSchedule>();
  for (const r of config.digest.recipients) {
    const schedulerId = digestSchedulerId(r.workspace, r.channel);
    // The same workspace and channel listed twice would send twice a day: the first one wins.
    if (!byId.has(schedulerId))
      byId.set(schedulerId, {
        schedulerId,
        pattern,
        tz: r.timeZone,
        data: { workspace: r.workspace, channel: r.channel },
      });
  }
  return [...byId.values()];
}

/** The next `count` fire times after `fromMs`, computed the way BullMQ computes them. */
export function nextFireTimes(
  schedule: Pick<DesiredDigestSchedule, 'pattern' | 'tz'>,
  fromMs: number,
  count: number,
): number[] {
  const out: number[] = [];
  let at = fromMs;
  for (let i = 0; i < count; i++) {
    const next = getNextMillis(at, { pattern: schedule.pattern, tz: schedule.tz });
    if (next === undefined) break;
    out.push(next);
    at = next;
  }
  return out;
}
