import { randomBytes } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';
import type { Clock } from '../util/clock.ts';
import { budgetKeys, hasHashTag, utcBillingMonth } from './keys.ts';
import { acquireScript, pauseScript, syncMonthScript } from './scripts.ts';

export interface BudgetLimits {
  perMinute: number;
  perMonth: number;
  /** Highest month count this caller may push the counter to: background polls pass
   * `perMonth × (1 − reserve)`, interactive commands the whole quota. Default `perMonth`. */
  monthCeiling?: number;
}

export type PauseReason = 'rate_limited' | 'quota_exceeded' | 'unauthorized';

export type BudgetDecision =
  | { granted: true; minuteUsed: number; monthUsed: number }
  | { granted: false; reason: 'minute' | 'month' | 'paused'; retryAtMs: number; pauseReason?: PauseReason };

export interface BudgetUsage {
  /** Grants inside the sliding window now. */
  minuteUsed: number;
  monthUsed: number;
  /** `YYYY-MM`, UTC. */
  month: string;
  monthResetAtMs: number;
  /** `Infinity` for a pause that lasts until `resume()`; null when not paused. */
  pausedUntilMs: number | null;
  pauseReason: PauseReason | null;
  /** Present when limits were given: what is left in the window and under the ceiling. */
  minuteRemaining?: number;
  monthRemaining?: number;
}

export interface RedisRequestBudgetOptions {
  /** On Cluster the prefix must carry a hash tag, e.g. `{shelfwatch}` (see keys.ts). */
  redis: Redis | Cluster;
  prefix: string;
  clock: Clock;
  /** Sliding window length. Default 61 s: the API counts fixed 60 s minutes; the extra second
   * absorbs clock skew between workers and the request's time in flight. */
  windowMs?: number;
  /** During a pause that lasts until `resume()`, how far ahead a refusal's `retryAtMs` points,
   * so callers look again later instead of getting a time that never comes. Default 5 min. */
  openPauseRecheckMs?: number;
}

const DEFAULT_WINDOW_MS = 61_000;
const DEFAULT_OPEN_PAUSE_RECHECK_MS = 5 * 60_000;
/** Key TTLs only collect garbage; the scripts decide by score and clock, never by expiry. The
 * slack keeps keys alive while a test's manual clock stands still or a clock lags a little. */
const WINDOW_KEY_SLACK_MS = 60 * 60_000;
const MONTH_KEY_SLACK_MS = 24 * 60 * 60_000;
const PAUSE_KEY_SLACK_MS = 60 * 60_000;
const PAUSE_REASONS: readonly string[] = ['rate_limited', 'quota_exceeded', 'unauthorized'];

/**
 * The per-workspace request budget every worker process shares: a sliding-window per-minute
 * limit, a monthly counter with a per-call ceiling, and a pause, checked and consumed in one Lua
 * script so concurrent workers can never over-grant.
 */
export class RedisRequestBudget {
  readonly clock: Clock;
  readonly windowMs: number;
  private readonly redis: Redis | Cluster;
  private readonly prefix: string;
  private readonly openPauseRecheckMs: number;
  /** Members of the window set must be unique across processes and calls. */
  private readonly instanceId = randomBytes(6).toString('base64url');
  private sequence = 0;

  constructor(options: RedisRequestBudgetOptions) {
    if (options.redis instanceof Cluster && !hasHashTag(options.prefix)) {
      throw new RangeError(
        `budget prefix "${options.prefix}" has no hash tag: on Redis Cluster use one such as "{shelfwatch}" so a workspace's keys share a slot`,
      );
    }
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.clock = options.clock;
    this.windowMs = positiveInteger('windowMs', options.windowMs ?? DEFAULT_WINDOW_MS);
    this.openPauseRecheckMs = positiveInteger(
      'openPauseRecheckMs',
      options.openPauseRecheckMs ?? DEFAULT_OPEN_PAUSE_RECHECK_MS,
    );
  }

  /** Grants `count` requests now, or says why not and when to ask again. */
  async tryAcquire(workspace: string, limits: BudgetLimits, count = 1): Promise<BudgetDecision> {
    const { perMinute, ceiling } = checkLimits(limits);
    if (!Number.isSafeInteger(count) || count < 1 || count > perMinute) {
      throw new RangeError(`count must be a whole number from 1 to perMinute (${perMinute}), got ${count}`);
    }
    const now = Math.floor(this.clock.now());
    const month = utcBillingMonth(now);
    const keys = budgetKeys(this.prefix, workspace);
    this.sequence += 1;
    const reply = await acquireScript.run(
      this.redis,
      [keys.window, keys.month(month.label), keys.pause],
      [
        now,
        this.windowMs,
        perMinute,
        ceiling,
        count,
        this.windowMs + WINDOW_KEY_SLACK_MS,
        month.endMs - now + MONTH_KEY_SLACK_MS,
        `${this.instanceId}.${this.sequence}`,
        month.endMs,
      ],
    );
    return this.decisionFrom(reply, now);
  }

  /**
   * Refuses every request of the workspace until `untilMs` (clock time), or until `resume()` when
   * `untilMs` is `Infinity` (a 401: a person must fix the key). Never shortens a longer pause.
   * The sliding window keeps its grants through the pause, so its end releases no burst.
   */
  async pauseUntil(workspace: string, untilMs: number, reason: PauseReason): Promise<void> {
    if (!Number.isFinite(untilMs) && untilMs !== Number.POSITIVE_INFINITY) {
      throw new RangeError(`untilMs must be a time in ms or Infinity, got ${untilMs}`);
    }
    if (!PAUSE_REASONS.includes(reason)) throw new RangeError(`unknown pause reason "${reason}"`);
    const now = Math.floor(this.clock.now());
    const open = untilMs === Number.POSITIVE_INFINITY;
    const until = open ? 0 : Math.ceil(untilMs);
    await pauseScript.run(
      this.redis,
      [budgetKeys(this.prefix, workspace).pause],
      [open ? 'inf' : until, reason, now, Math.max(1, until - now) + PAUSE_KEY_SLACK_MS],
    );
  }

  /** Lifts any pause of the workspace (after someone fixed the API key). */
  async resume(workspace: string): Promise<void> {
    await this.redis.del(budgetKeys(this.prefix, workspace).pause);
  }

  /**
   * Raises this month's counter to the count the API reports (`X-Quota-Limit` minus
   * `X-Quota-Remaining`), so requests made with the same key elsewhere are accounted for.
   * Never lowers it. Returns the counter afterwards.
   */
  async syncMonthUsed(workspace: string, usedAccordingToApi: number): Promise<number> {
    if (!Number.isSafeInteger(usedAccordingToApi) || usedAccordingToApi < 0) {
      throw new RangeError(`usedAccordingToApi must be a whole number ≥ 0, got ${usedAccordingToApi}`);
    }
    const now = Math.floor(this.clock.now());
    const month = utcBillingMonth(now);
    const reply = await syncMonthScript.run(
      this.redis,
      [budgetKeys(this.prefix, workspace).month(month.label)],
      [usedAccordingToApi, month.endMs - now + MONTH_KEY_SLACK_MS],
    );
    return toNumber(reply, 'sync reply');
  }

  /** What the workspace has used, for `status` and metrics. Reads only; not atomic across keys. */
  async usage(workspace: string, limits?: BudgetLimits): Promise<BudgetUsage> {
    const now = Math.floor(this.clock.now());
    const month = utcBillingMonth(now);
    const keys = budgetKeys(this.prefix, workspace);
    const [minuteUsed, monthRaw, pause] = await Promise.all([
      this.redis.zcount(keys.window, `(${now - this.windowMs}`, '+inf'),
      this.redis.get(keys.month(month.label)),
      this.redis.hmget(keys.pause, 'until', 'reason'),
    ]);
    const monthUsed = monthRaw === null ? 0 : Number(monthRaw);
    const [untilRaw, reasonRaw] = pause;
    const until = untilRaw === 'inf' ? Number.POSITIVE_INFINITY : untilRaw ? Number(untilRaw) : null;
    const paused = until !== null && until > now;
    const usage: BudgetUsage = {
      minuteUsed,
      monthUsed,
      month: month.label,
      monthResetAtMs: month.endMs,
      pausedUntilMs: paused ? until : null,
      pauseReason: paused ? asPauseReason(reasonRaw ?? null) : null,
    };
    if (limits !== undefined) {
      const { perMinute, ceiling } = checkLimits(limits);
      usage.minuteRemaining = Math.max(0, perMinute - minuteUsed);
      usage.monthRemaining = Math.max(0, ceiling - monthUsed);
    }
    return usage;
  }

  private decisionFrom(reply: unknown, now: number): BudgetDecision {
    if (!Array.isArray(reply)) throw new TypeError(`unexpected budget script reply: ${String(reply)}`);
    const [granted, second, third, fourth] = reply as unknown[];
    if (granted === 1) {
      return {
        granted: true,
        minuteUsed: toNumber(second, 'minuteUsed'),
        monthUsed: toNumber(third, 'monthUsed'),
      };
    }
    const retryAtMs = toNumber(third, 'retryAtMs');
    if (second === 'paused') {
      const pauseReason = asPauseReason(typeof fourth === 'string' ? fourth : null) ?? undefined;
      const retry = retryAtMs < 0 ? now + this.openPauseRecheckMs : retryAtMs;
      return pauseReason === undefined
        ? { granted: false, reason: 'paused', retryAtMs: retry }
        : { granted: false, reason: 'paused', retryAtMs: retry, pauseReason };
    }
    if (second === 'minute' || second === 'month') return { granted: false, reason: second, retryAtMs };
    throw new TypeError(`unexpected budget refusal reason: ${String(second)}`);
  }
}

/**
 * Thrown by `budgetGate` when a request may not go out now. Carries the decision so the poller
 * can turn it into a delayed job instead of spinning. Times are in the budget's clock.
 */
export class BudgetExhaustedError extends Error {
  override readonly name = 'BudgetExhaustedError';
  readonly workspace: string;
  readonly reason: 'minute' | 'month' | 'paused';
  readonly retryAtMs: number;
  /** `retryAtMs` minus the clock's now, at least 0. Clock ms: under an accelerated clock,
   * divide by the speed before using it as a real delay. */
  readonly retryAfterMs: number;
  readonly pauseReason: PauseReason | undefined;

  constructor(workspace: string, decision: Extract<BudgetDecision, { granted: false }>, nowMs: number) {
    const because = decision.pauseReason === undefined ? decision.reason : `paused (${decision.pauseReason})`;
    super(
      `request budget of workspace "${workspace}" exhausted: ${because}; retry at ${new Date(decision.retryAtMs).toISOString()}`,
    );
    this.workspace = workspace;
    this.reason = decision.reason;
    this.retryAtMs = decision.retryAtMs;
    this.retryAfterMs = Math.max(0, decision.retryAtMs - nowMs);
    this.pauseReason = decision.pauseReason;
  }
}

/**
 * The API client's `beforeRequest` hook: takes one request from the budget or throws
 * `BudgetExhaustedError`. `limits` may be a function so a long-lived client sees re-read limits.
 */
export function budgetGate(
  budget: RedisRequestBudget,
  workspace: string,
  limits: BudgetLimits | (() => BudgetLimits),
): (request?: unknown) => Promise<void> {
  return async () => {
    const decision = await budget.tryAcquire(workspace, typeof limits === 'function' ? limits() : limits);
    if (!decision.granted) throw new BudgetExhaustedError(workspace, decision, budget.clock.now());
  };
}

function checkLimits(limits: BudgetLimits): { perMinute: number; ceiling: number } {
  const perMinute = positiveInteger('perMinute', limits.perMinute);
  if (!Number.isFinite(limits.perMonth) || limits.perMonth < 0) {
    throw new RangeError(`perMonth must be a number ≥ 0, got ${limits.perMonth}`);
  }
  const perMonth = Math.floor(limits.perMonth);
  const wanted = limits.monthCeiling ?? perMonth;
  if (Number.isNaN(wanted)) throw new RangeError('monthCeiling must be a number');
  // Fractional ceilings come from quota × (1 − reserve): round down so the reserve stays whole,
  // after forgiving float noise (100000 × (1 − 0.34) is 65999.99999999999).
  return { perMinute, ceiling: Math.max(0, Math.min(perMonth, Math.floor(wanted + 1e-6))) };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a whole number ≥ 1, got ${value}`);
  return value;
}

function toNumber(value: unknown, what: string): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || Number.isNaN(number))
    throw new TypeError(`budget script: bad ${what}: ${String(value)}`);
  return number;
}

function asPauseReason(value: string | null): PauseReason | null {
  return value !== null && PAUSE_REASONS.includes(value) ? (value as PauseReason) : null;
}
