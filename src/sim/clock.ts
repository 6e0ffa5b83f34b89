import { performance } from 'node:perf_hooks';

/**
 * Sim time: `startAt + realElapsed * speed + advanced`. Real elapsed time is read from the
 * monotonic clock, so a wall-clock jump on the host does not move the simulated world. Speed 0
 * freezes time except for explicit advances, which tests use for exact windows.
 */
export class SimClock {
  private readonly realStart = performance.now();
  private advancedMs = 0;

  constructor(
    private readonly startMs: number,
    private readonly speed: number,
  ) {}

  now(): number {
    return Math.floor(this.startMs + (performance.now() - this.realStart) * this.speed + this.advancedMs);
  }

  advance(ms: number): void {
    this.advancedMs += ms;
  }
}
