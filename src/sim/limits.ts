import type { SimPlan } from './keys.ts';
import { floorTo, MINUTE, monthKey, nextMonthStart, SECOND } from './time.ts';

/**
 * Per-workspace limits on the sim clock: a fixed window per UTC minute and the UTC calendar month,
 * so an accelerated month exhausts and resets them as the real service would. A request that is
 * refused with 429 is not counted.
 */
interface Usage {
  minuteStart: number;
  minuteCount: number;
  month: string;
  monthCount: number;
}

export type LimitHeaders = Record<string, string>;

export type LimitDecision =
  | { ok: true; headers: LimitHeaders }
  | { ok: false; code: 'rate_limited' | 'quota_exceeded'; retryAfterSeconds: number; headers: LimitHeaders };

export class LimitCounter {
  private readonly usage = new Map<string, Usage>();

  private current(workspace: string, nowMs: number): Usage {
    const minuteStart = floorTo(nowMs, MINUTE);
    const month = monthKey(nowMs);
    const usage = this.usage.get(workspace) ?? { minuteStart, minuteCount: 0, month, monthCount: 0 };
    if (usage.minuteStart !== minuteStart) {
      usage.minuteStart = minuteStart;
      usage.minuteCount = 0;
    }
    if (usage.month !== month) {
      usage.month = month;
      usage.monthCount = 0;
    }
    this.usage.set(workspace, usage);
    return usage;
  }

  private headers(plan: SimPlan, usage: Usage): LimitHeaders {
    return {
      'X-RateLimit-Limit': String(plan.perMinute),
      'X-RateLimit-Remaining': String(Math.max(0, plan.perMinute - usage.minuteCount)),
      'X-RateLimit-Reset': String((usage.minuteStart + MINUTE) / SECOND),
      'X-Quota-Limit': String(plan.perMonth),
      'X-Quota-Remaining': String(Math.max(0, plan.perMonth - usage.monthCount)),
    };
  }

  /** Counts the request if both windows have room; otherwise says which limit refused it. */
  take(workspace: string, plan: SimPlan, nowMs: number): LimitDecision {
    const usage = this.current(workspace, nowMs);
    // The month is checked first: its wait is the longer one, and the one a client must honour.
    if (usage.monthCount >= plan.perMonth) {
      const wait = nextMonthStart(nowMs) - nowMs;
      return {
        ok: false,
        code: 'quota_exceeded',
        retryAfterSeconds: waitSeconds(wait),
        headers: this.headers(plan, usage),
      };
    }
    if (usage.minuteCount >= plan.perMinute) {
      const wait = usage.minuteStart + MINUTE - nowMs;
      return {
        ok: false,
        code: 'rate_limited',
        retryAfterSeconds: waitSeconds(wait),
        headers: this.headers(plan, usage),
      };
    }
    usage.minuteCount += 1;
    usage.monthCount += 1;
    return { ok: true, headers: this.headers(plan, usage) };
  }

  /** The headers without counting: for answers that never reached the counted service (injected faults). */
  peek(workspace: string, plan: SimPlan, nowMs: number): LimitHeaders {
    return this.headers(plan, this.current(workspace, nowMs));
  }

  snapshot(workspace: string, nowMs: number): { minute_count: number; month: string; month_count: number } {
    const usage = this.current(workspace, nowMs);
    return { minute_count: usage.minuteCount, month: usage.month, month_count: usage.monthCount };
  }
}

function waitSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / SECOND));
}
