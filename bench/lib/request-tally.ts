/**
 * A tally of the simulator's request log between two sim times, read incrementally through its
 * control client so a month of requests never has to fit in the log at once.
 */
import type { SimControlClient } from '../../src/sim/index.ts';
import { busiestWindow } from './stats.ts';

/** Counts what the simulator logged between two sim times, fed from the log a page at a time. */
export class RequestTally {
  private lastSeq = 0;
  /** Every request the simulator received in the span, answered or not, counted or not. */
  sent = 0;
  counted = 0;
  /** 429s by error code (`rate_limited`, `quota_exceeded`). */
  readonly refused = new Map<string, number>();
  /** Other non-2xx answers by status. */
  readonly failed = new Map<number, number>();
  private readonly countedTimes: number[] = [];
  /** Counted requests per sim day from `fromMs`. */
  readonly perDay: number[] = [];
  /** Sim time of the last counted request. */
  lastCountedAt = Number.NaN;
  private readonly perMinute = new Map<number, number>();

  constructor(
    private readonly fromMs: number,
    private readonly toMs: number,
  ) {}

  async pull(control: SimControlClient): Promise<void> {
    const entries = await control.requests(this.lastSeq);
    for (const e of entries) {
      this.lastSeq = Math.max(this.lastSeq, e.seq);
      const at = Date.parse(e.sim_time);
      if (at < this.fromMs || at >= this.toMs) continue;
      this.sent++;
      if (e.status === 429) {
        const code = e.error_code ?? 'unknown';
        this.refused.set(code, (this.refused.get(code) ?? 0) + 1);
      } else if (e.status === null || e.status >= 300) {
        this.failed.set(e.status ?? 0, (this.failed.get(e.status ?? 0) ?? 0) + 1);
      }
      if (!e.counted) continue;
      this.counted++;
      this.countedTimes.push(at);
      const day = Math.floor((at - this.fromMs) / 86_400_000);
      while (this.perDay.length <= day) this.perDay.push(0);
      this.perDay[day] = (this.perDay[day] ?? 0) + 1;
      if (!(at <= this.lastCountedAt)) this.lastCountedAt = at;
      const minute = Math.floor(at / 60_000);
      this.perMinute.set(minute, (this.perMinute.get(minute) ?? 0) + 1);
    }
  }

  /** Most counted requests in one fixed UTC minute (the simulator's own window). */
  busiestFixedMinute(): number {
    let most = 0;
    for (const n of this.perMinute.values()) most = Math.max(most, n);
    return most;
  }

  /** Most counted requests in any sliding 60 s of sim time (what a stricter server could count). */
  busiestSlidingMinute(): number {
    return busiestWindow(this.countedTimes, 60_000);
  }

  refusedTotal(): number {
    let n = 0;
    for (const v of this.refused.values()) n += v;
    return n;
  }
}
