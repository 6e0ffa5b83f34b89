/**
 * Time as the engine sees it. Injected everywhere instead of `Date.now()`, so tests and the
 * accelerated simulator can drive time without fake timers (which do not mix with BullMQ).
 * BullMQ itself schedules in real milliseconds: `speed` and `fromReal` translate between the two.
 */
export interface Clock {
  now(): number;
  /** How many clock ms pass per real ms (1 for the system clock). */
  readonly speed?: number;
  /** The clock's time at a given real (wall) time. */
  fromReal?(realMs: number): number;
}

export const systemClock: Clock = { now: () => Date.now(), speed: 1, fromReal: (ms) => ms };

/** A clock that runs `speed` times faster than real time from `startMs`. */
export function acceleratedClock(startMs: number, speed: number, real: Clock = systemClock): Clock {
  const realStart = real.now();
  const fromReal = (realMs: number) => startMs + (realMs - realStart) * speed;
  return { now: () => fromReal(real.now()), speed, fromReal };
}

/** Clock ms → real ms to wait (BullMQ delays and cadences are real). */
export function realDelayMs(clock: Clock, clockMs: number): number {
  return Math.max(0, Math.ceil(clockMs / (clock.speed ?? 1)));
}

/** The clock's time at a real time (identity for clocks that do not say). */
export function clockTimeOfReal(clock: Clock, realMs: number): number {
  return clock.fromReal === undefined ? realMs : clock.fromReal(realMs);
}

/** A clock that only moves when told to: for pure unit tests of rules and planners. */
export class ManualClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
