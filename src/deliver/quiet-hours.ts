import { localMinutes, minutesOf } from '../util/zoned-time.ts';

/** A daily window, in a time zone, in which non-critical alerts are held back. */
export interface QuietHours {
  /** "HH:MM" local; the window may wrap midnight (22:00 → 07:00). */
  start: string;
  end: string;
  timeZone: string;
}

function inWindow(minute: number, start: number, end: number): boolean {
  if (start === end) return false;
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

/**
 * When the quiet hours around `nowMs` end, or null when `nowMs` is outside them. Works on local
 * wall-clock minutes, so the window keeps its local times across a daylight-saving change: the
 * first guess adds the wall-clock distance, then it steps to the exact first minute outside.
 */
export function quietHoursEnd(nowMs: number, quiet: QuietHours | undefined): number | null {
  if (quiet === undefined) return null;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const now = localMinutes(nowMs, quiet.timeZone);
  if (!inWindow(now, start, end)) return null;
  const wallDistance = (end - now + 1_440) % 1_440;
  const minuteStart = nowMs - (nowMs % 60_000);
  let candidate = minuteStart + wallDistance * 60_000;
  // A DST change inside the window moves the wall clock by an hour: walk to the real end.
  for (let step = 0; step < 180 && inWindow(localMinutes(candidate, quiet.timeZone), start, end); step += 1) {
    candidate += 60_000;
  }
  for (
    let step = 0;
    step < 180 && !inWindow(localMinutes(candidate - 60_000, quiet.timeZone), start, end);
    step += 1
  ) {
    if (candidate - 60_000 <= nowMs) break;
    candidate -= 60_000;
  }
  return candidate;
}
