import type { MuteWindowConfig, WEEKDAYS } from '../config/mute-windows.ts';
import { HOUR_MS, MINUTE_MS } from '../util/time-units.ts';
import { localMinutes, minutesOf, zonedParts } from '../util/zoned-time.ts';
import type { Muting } from './silence.ts';

/** The local date ("YYYY-MM-DD") and weekday ("mon") at `ms` in `timeZone`. */
function localDay(ms: number, timeZone: string): { date: string; weekday: string } {
  const parts = zonedParts(ms, timeZone);
  return { date: `${parts.year}-${parts.month}-${parts.day}`, weekday: parts.weekday };
}

/** The window opens on this local day: within its dates, on one of its weekdays. */
function opensOn(window: MuteWindowConfig, day: { date: string; weekday: string }): boolean {
  if (window.from !== undefined && day.date < window.from) return false;
  if (window.until !== undefined && day.date > window.until) return false;
  return window.days === undefined || window.days.includes(day.weekday as (typeof WEEKDAYS)[number]);
}

/**
 * Whether the window is open at `nowMs`. Local wall-clock times, so it keeps them across a
 * daylight-saving change, like quiet hours. A window that wraps midnight (22:00 → 06:00) belongs to
 * the day it opened: its early hours are checked against the day before.
 */
export function muteWindowOpen(window: MuteWindowConfig, nowMs: number): boolean {
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const minute = localMinutes(nowMs, window.timeZone);
  const today = localDay(nowMs, window.timeZone);
  if (start === end) return opensOn(window, today);
  if (start < end) return minute >= start && minute < end && opensOn(window, today);
  if (minute >= start) return opensOn(window, today);
  // 12 hours back is always the day before here (minute < end ≤ 24h), whatever DST does.
  return (
    minute < end && opensOn(window, localDay(nowMs - minute * MINUTE_MS - 12 * HOUR_MS, window.timeZone))
  );
}

/** The configured windows open at `nowMs`, as mutings for `compileMutings`. */
export function openMuteWindows(windows: readonly MuteWindowConfig[], nowMs: number): Muting[] {
  return windows
    .filter((window) => muteWindowOpen(window, nowMs))
    .map((window) => ({
      matchers: window.match,
      match: { id: `mute:${window.name}`, reason: window.reason ?? `mute window ${window.name}` },
    }));
}
