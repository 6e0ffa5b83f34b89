import { randomBytes } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';
import type { Clock } from '../util/clock.ts';
import { homePrefix, type KeyPrefix } from '../util/redis-keys.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../util/time-units.ts';
import type { BudgetDecision, BudgetGrant, BudgetLimits, BudgetUsage, PauseReason } from './budget-types.ts';
import { budgetKeys, hasHashTag, utcBillingMonth } from './keys.ts';
import { checkLimits, positiveInteger } from './limits.ts';
import {
  acquireScript,
  answeredScript,
  pauseScript,
  refundScript,
  restampScript,
  syncMinuteScript,
  syncMonthScript,
} from './scripts.ts';
import { type TimeBasis, timeBasis, toClockTime, toScriptMs } from './time-basis.ts';

export interface RedisRequestBudgetOptions {
  /** On Cluster the prefix must carry a hash tag, e.g. `{shelfwatch}` (see keys.ts). */
  redis: Redis | Cluster;
  prefix: KeyPrefix;
  clock: Clock;
  /** Sliding window length (clock ms). Default 61 s: the API counts fixed 60 s minutes; the extra
   * second absorbs the request's time in flight. Workers' clocks do not skew it: the window is
   * measured with Redis TIME (time-basis.ts). */
  windowMs?: number;
  /** During a pause that lasts until `resume()`, how far ahead a refusal's `retryAtMs` points,
   * so callers look again later instead of getting a time that never comes. Default 5 min. */
  openPauseRecheckMs?: number;
}

const DEFAULT_WINDOW_MS = 61_000;
const DEFAULT_OPEN_PAUSE_RECHECK_MS = 5 * MINUTE_MS;
/** Key TTLs only collect garbage; the scripts decide by score and clock, never by expiry. The
 * slack keeps keys alive while a test's manual clock stands still or a clock lags a little. */
const WINDOW_KEY_SLACK_MS = HOUR_MS;
const MONTH_KEY_SLACK_MS = DAY_MS;
const PAUSE_KEY_SLACK_MS = HOUR_MS;
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
  private readonly prefix: KeyPrefix;
  private readonly openPauseRecheckMs: number;
  /** Members of the window set must be unique across processes and calls. */
  private readonly instanceId = randomBytes(6).toString('base64url');
  private sequence = 0;

  constructor(options: RedisRequestBudgetOptions) {
    if (options.redis instanceof Cluster && !hasHashTag(homePrefix(options.prefix))) {
      throw new RangeError(
        `budget prefix "${homePrefix(options.prefix)}" has no hash tag: on Redis Cluster use one such as "{shelfwatch}" so a workspace's keys share a slot`,
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
    return (await this.reserve(workspace, limits, count)).decision;
  }

  /**
   * `tryAcquire`, and when granted a handle on the grant so that what a caller did not use can be
   * given back (`refund`): a paginated poll reserves its learned page count before it starts.
   */
  async reserve(
    workspace: string,
    limits: BudgetLimits,
    count: number,
  ): Promise<{ decision: BudgetDecision; grant?: BudgetGrant }> {
    const { perMinute, ceiling } = checkLimits(limits);
    if (!Number.isSafeInteger(count) || count < 1 || count > perMinute) {
      throw new RangeError(`count must be a whole number from 1 to perMinute (${perMinute}), got ${count}`);
    }
    const basis = timeBasis(this.clock);
    const month = utcBillingMonth(basis.clockNow);
    const keys = budgetKeys(this.prefix, workspace);
    const nonce = this.nextNonce();
    const reply = await acquireScript.run(
      this.redis,
      [keys.window, keys.month(month.label), keys.pause],
      [
        basis.nowArg,
        toScriptMs(basis, this.windowMs),
        perMinute,
        ceiling,
        count,
        this.windowKeyTtl(basis),
        Math.ceil(toScriptMs(basis, month.endMs - basis.clockNow) + MONTH_KEY_SLACK_MS),
        nonce,
        toScriptMs(basis, month.endMs - basis.clockNow),
      ],
    );
    // Times come back anchored at the answer: a retry time is then late by the call's latency at
    // most, never early.
    const decision = this.decisionFrom(reply, { ...basis, clockNow: this.clock.now() });
    if (!decision.granted) return { decision };
    return { decision, grant: { workspace, month: month.label, nonce, count } };
  }

  /**
   * The `index`-th (1-based) request of a grant from `reserve` goes out now: its place in the window
   * starts now. False when it has already left the window (take a fresh grant instead).
   */
  async restamp(grant: BudgetGrant, index: number): Promise<boolean> {
    const member = windowMember(grant, index);
    const basis = timeBasis(this.clock);
    const reply = await restampScript.run(
      this.redis,
      [budgetKeys(this.prefix, grant.workspace).window],
      [basis.nowArg, member],
    );
    return reply === 1;
  }

  /**
   * The `index`-th request of a grant has been answered (or failed) now: its place in the window
   * starts now, put back if it had left the window while the request was out (answeredScript).
   */
  async answered(grant: BudgetGrant, index: number): Promise<void> {
    const member = windowMember(grant, index);
    const basis = timeBasis(this.clock);
    await answeredScript.run(
      this.redis,
      [budgetKeys(this.prefix, grant.workspace).window],
      [basis.nowArg, member, this.windowKeyTtl(basis)],
    );
  }

  /** Gives back the last `unused` requests of a grant from `reserve` (they never went out). */
  async refund(grant: BudgetGrant, unused: number): Promise<void> {
    if (!Number.isSafeInteger(unused) || unused < 0 || unused > grant.count) {
      throw new RangeError(`unused must be a whole number from 0 to ${grant.count}, got ${unused}`);
    }
    if (unused === 0) return;
    const keys = budgetKeys(this.prefix, grant.workspace);
    await refundScript.run(
      this.redis,
      [keys.window, keys.month(grant.month)],
      [grant.nonce, grant.count - unused + 1, grant.count],
    );
  }

  /**
   * Fills the window up to what the API says it has counted in its current minute (`X-RateLimit-
   * Limit` minus `X-RateLimit-Remaining`), when that is more than the window holds: after a Redis
   * crash lost the window's last writes, or with another client on the same key. Returns the
   * grants added (0 when the window already holds as many). `resetAtMs` (clock time, the API's
   * X-RateLimit-Reset) is when the API's minute ends: the added grants leave the window then.
   */
  async syncMinuteUsed(workspace: string, usedAccordingToApi: number, resetAtMs?: number): Promise<number> {
    if (!Number.isSafeInteger(usedAccordingToApi) || usedAccordingToApi < 0) {
      throw new RangeError(`usedAccordingToApi must be a whole number ≥ 0, got ${usedAccordingToApi}`);
    }
    if (usedAccordingToApi === 0) return 0;
    const basis = timeBasis(this.clock);
    const untilReset =
      resetAtMs === undefined
        ? this.windowMs
        : Math.min(this.windowMs, Math.max(0, resetAtMs - this.clock.now()));
    const reply = await syncMinuteScript.run(
      this.redis,
      [budgetKeys(this.prefix, workspace).window],
      [
        basis.nowArg,
        toScriptMs(basis, this.windowMs),
        usedAccordingToApi,
        this.nextNonce(),
        this.windowKeyTtl(basis),
        toScriptMs(basis, untilReset),
      ],
    );
    return toNumber(reply, 'minute sync reply');
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
    const basis = timeBasis(this.clock);
    const open = untilMs === Number.POSITIVE_INFINITY;
    const forMs = open ? 0 : toScriptMs(basis, Math.ceil(untilMs) - basis.clockNow);
    await pauseScript.run(
      this.redis,
      [budgetKeys(this.prefix, workspace).pause],
      [open ? 'inf' : forMs, reason, basis.nowArg, Math.ceil(Math.max(1, forMs) + PAUSE_KEY_SLACK_MS)],
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
    const basis = timeBasis(this.clock);
    const now = basis.nowArg === 'redis' ? await redisTimeMs(this.redis) : Number(basis.nowArg);
    const month = utcBillingMonth(basis.clockNow);
    const keys = budgetKeys(this.prefix, workspace);
    const [minuteUsed, monthRaw, pause] = await Promise.all([
      this.redis.zcount(keys.window, `(${now - toScriptMs(basis, this.windowMs)}`, '+inf'),
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
      pausedUntilMs: paused
        ? until === Number.POSITIVE_INFINITY
          ? until
          : toClockTime({ ...basis, clockNow: this.clock.now() }, until, now)
        : null,
      pauseReason: paused ? asPauseReason(reasonRaw ?? null) : null,
    };
    if (limits !== undefined) {
      const { perMinute, ceiling } = checkLimits(limits);
      usage.minuteRemaining = Math.max(0, perMinute - minuteUsed);
      usage.monthRemaining = Math.max(0, ceiling - monthUsed);
    }
    return usage;
  }

  private nextNonce(): string {
    this.sequence += 1;
    return `${this.instanceId}.${this.sequence}`;
  }

  private windowKeyTtl(basis: TimeBasis): number {
    return Math.ceil(toScriptMs(basis, this.windowMs) + WINDOW_KEY_SLACK_MS);
  }

  private decisionFrom(reply: unknown, basis: TimeBasis): BudgetDecision {
    if (!Array.isArray(reply)) throw new TypeError(`unexpected budget script reply: ${String(reply)}`);
    const [granted, second, third, fourth, fifth] = reply as unknown[];
    if (granted === 1) {
      return {
        granted: true,
        minuteUsed: toNumber(second, 'minuteUsed'),
        monthUsed: toNumber(third, 'monthUsed'),
      };
    }
    const scriptNow = toNumber(fifth, 'now');
    const scriptRetryAt = toNumber(third, 'retryAtMs');
    const retryAtMs = scriptRetryAt < 0 ? scriptRetryAt : toClockTime(basis, scriptRetryAt, scriptNow);
    if (second === 'paused') {
      const pauseReason =
        asPauseReason(typeof fourth === 'string' && fourth !== '' ? fourth : null) ?? undefined;
      const retry = retryAtMs < 0 ? basis.clockNow + this.openPauseRecheckMs : retryAtMs;
      return pauseReason === undefined
        ? { granted: false, reason: 'paused', retryAtMs: retry }
        : { granted: false, reason: 'paused', retryAtMs: retry, pauseReason };
    }
    if (second === 'minute' || second === 'month') return { granted: false, reason: second, retryAtMs };
    throw new TypeError(`unexpected budget refusal reason: ${String(second)}`);
  }
}

/** Redis TIME in ms (to the µs), as the scripts read it. */
async function redisTimeMs(redis: Redis | Cluster): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

export type { BudgetDecision, BudgetGrant, BudgetLimits, BudgetUsage, PauseReason } from './budget-types.ts';
export { acquireOne, BudgetExhaustedError, budgetGate } from './gate.ts';

/** The window's entry of a grant's `index`-th (1-based) request, as the acquire script wrote it. */
function windowMember(grant: BudgetGrant, index: number): string {
  if (!Number.isSafeInteger(index) || index < 1 || index > grant.count) {
    throw new RangeError(`index must be a whole number from 1 to ${grant.count}, got ${index}`);
  }
  return `${grant.nonce}:${index}`;
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
