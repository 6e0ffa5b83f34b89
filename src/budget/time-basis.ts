import type { Clock } from '../util/clock.ts';

/**
 * Where the shared scripts (budget window, channel pacing) take "now" from.
 *
 * A clock that follows real time (it says how: `speed` and `fromReal`, like `systemClock` and the
 * accelerated clocks of the demo and the simulator) is measured by Redis `TIME` inside the script:
 * every process then stamps grants with the same clock, whatever its own is set to (one worker 30 s
 * ahead, or a call that waited out a Redis outage in the offline queue). Only the clock's rate is
 * used: stored times are Redis ms, and a clock duration d is `d / speed` of them, so an accelerated
 * clock's minute is still its own minute. A clock that only moves when told (`ManualClock`, tests)
 * is its own time source: its `now()` is passed in, and stored times are clock ms.
 *
 * Times the scripts hand back are turned into clock times as `clock.now() + (t − scriptNow) × speed`:
 * only differences cross between the two clocks, never absolute times.
 */
export interface TimeBasis {
  /** ARGV for the script: `'redis'` (read `TIME`) or the clock's now in ms. */
  readonly nowArg: string;
  /** Script ms per clock ms: `1 / speed` under Redis time, 1 for a manual clock. */
  readonly scale: number;
  /** The clock's now when the basis was taken: the anchor that script times are converted against. */
  readonly clockNow: number;
}

export function timeBasis(clock: Clock): TimeBasis {
  const clockNow = clock.now();
  if (clock.fromReal === undefined) return { nowArg: String(Math.floor(clockNow)), scale: 1, clockNow };
  const speed = clock.speed ?? 1;
  if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`clock speed must be > 0, got ${speed}`);
  return { nowArg: 'redis', scale: 1 / speed, clockNow };
}

/** A clock duration as script ms. */
export function toScriptMs(basis: TimeBasis, clockMs: number): number {
  return clockMs * basis.scale;
}

/** A time the script returned (script ms, next to the script's own now) as a clock time. */
export function toClockTime(basis: TimeBasis, scriptTime: number, scriptNow: number): number {
  return Math.ceil(basis.clockNow + (scriptTime - scriptNow) / basis.scale);
}

/**
 * Lua: `scriptNow(ARGV[i])` is Redis `TIME` in ms (to the µs: at 14,400× a real ms is 14 s of clock
 * time) for `'redis'`, else the number passed; `timeReply(t)` formats a time for the reply (a Lua
 * number would come back as a truncated integer). Scripts that read TIME and then write are
 * replicated by their effects (the default since Redis 5, and BullMQ needs 6.2), and TIME names
 * no key, so this holds on Cluster too.
 */
export const SCRIPT_NOW_LUA = `
local function scriptNow(arg)
  if arg == 'redis' then
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
  end
  return tonumber(arg)
end
local function timeReply(t)
  return string.format('%.3f', t)
end
`;
