/**
 * Time as the engine sees it. Injected everywhere instead of `Date.now()`, so tests and the
 * accelerated simulator can drive time without fake timers (which do not mix with BullMQ).
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that runs `speed` times faster than real time from `startMs`. */
export function acceleratedClock(startMs: number, speed: number, real: Clock = systemClock): Clock {
  const realStart = real.now();
  return { now: () => startMs + (real.now() - realStart) * speed };
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
