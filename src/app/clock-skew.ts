/**
 * A worker whose clock is off Redis's. BullMQ reads the process's `Date.now()` for everything that
 * is "when": a delayed job is promoted once the worker's own clock passes its time, and a
 * scheduler's next job is placed from the clock of the worker that started the current one (its
 * catch-up aligns to that clock: `getJobSchedulerEveryNextMillis` in updateJobScheduler-12.lua,
 * `now` = the worker's `Date.now()`). BullMQ's own docs ask for synchronised clocks
 * (`delay` in base-job-options). A worker 30 s ahead therefore took every poll 30 s early, and its
 * catch-ups moved the schedule into its own time, so the correct-clock worker's polls found the
 * baseline already committed at a later planned time and were thrown away as duplicates.
 *
 * So the process runs on Redis's time: the skew is measured against Redis `TIME` (the budget's
 * clock already, `budget/time-basis.ts`), said (a warning line, `shelfwatch_clock_skew_seconds`),
 * and past `CLOCK_SKEW_CORRECT_MS` taken out of `Date.now()` itself, the one clock BullMQ, the
 * engine's `systemClock` and the log lines read. Then every worker promotes, plans and stamps
 * polls on one clock, whichever of them created a job. `new Date()` without arguments is not
 * corrected (V8 reads the system time for it directly); nothing that schedules reads it.
 */
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.ts';
import type { Metrics } from '../ops/metrics.ts';

/** A skew from this on is warned about and corrected; under half of it the warning ends. */
export const CLOCK_SKEW_CORRECT_MS = 1_000;
/** A measured change smaller than this leaves the correction alone (no jitter in `Date.now()`). */
const RESTEP_MS = 100;
const SAMPLES = 3;

/** The system's own clock, as it was before any correction (measurements always use it). */
const systemNow: () => number = Date.now.bind(Date);
let offsetMs = 0;

/** The correction now applied to `Date.now()` (ms taken away); 0 when none. */
export function clockCorrectionMs(): number {
  return offsetMs;
}

/** `Date.now()` becomes the system clock minus `ms`; 0 puts the system clock back. */
export function correctProcessClock(ms: number): void {
  offsetMs = ms;
  Date.now = ms === 0 ? systemNow : () => systemNow() - offsetMs;
}

/**
 * This process's clock minus Redis `TIME`, in ms: the sample with the shortest round trip of a
 * few, each compared with the middle of its round trip (its error is at most half of `rttMs`).
 */
export async function measureClockSkew(
  redis: Redis | Cluster,
  now: () => number = systemNow,
): Promise<{ skewMs: number; rttMs: number }> {
  let best: { skewMs: number; rttMs: number } | undefined;
  for (let i = 0; i < SAMPLES; i++) {
    const sent = now();
    const [seconds, micros] = await redis.time();
    const received = now();
    const redisMs = Number(seconds) * 1_000 + Number(micros) / 1_000;
    const sample = { skewMs: (sent + received) / 2 - redisMs, rttMs: received - sent };
    if (best === undefined || sample.rttMs < best.rttMs) best = sample;
  }
  return best as { skewMs: number; rttMs: number };
}

/** Measures the skew on demand (at start, then on a timer), says it and keeps the correction. */
export class ClockSkewWatch {
  private warned = false;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    /** Whether to correct `Date.now()` (only `run` does: it is the process BullMQ schedules in). */
    private readonly correct = true,
  ) {}

  async check(): Promise<number> {
    const { skewMs, rttMs } = await measureClockSkew(this.redis);
    this.metrics.clockSkew(skewMs / 1_000);
    const large = Math.abs(skewMs) >= CLOCK_SKEW_CORRECT_MS;
    if (large && !this.warned) {
      this.warned = true;
      this.logger.warn(
        { skewSeconds: round(skewMs), roundTripMs: Math.round(rttMs), corrected: this.correct },
        `this process's clock is ${round(Math.abs(skewMs))} s ${skewMs > 0 ? 'ahead of' : 'behind'} Redis TIME; ${
          this.correct ? 'running on Redis time' : 'times it writes are off by as much'
        } (synchronise the clock with NTP)`,
      );
    } else if (!large && this.warned && Math.abs(skewMs) < CLOCK_SKEW_CORRECT_MS / 2) {
      this.warned = false;
      this.logger.info({ skewSeconds: round(skewMs) }, "this process's clock agrees with Redis TIME again");
    }
    // Once correcting, the measured skew is kept (small or not): stepping back to the system clock
    // would move time by up to the threshold for nothing.
    if (this.correct && (large || offsetMs !== 0) && Math.abs(skewMs - offsetMs) >= RESTEP_MS) {
      correctProcessClock(Math.round(skewMs));
    }
    return skewMs;
  }
}

function round(ms: number): number {
  return Math.round(ms / 100) / 10;
}
