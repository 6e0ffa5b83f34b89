import { describe, expect, it } from 'vitest';
import { budgetKeys } from '../../src/budget/keys.ts';
import { BudgetExhaustedError, budgetGate, RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { maxGrantsInAnySpan } from './budget-helpers.ts';

const prefix = testPrefix('budget-mp');
const redis = testRedis(prefix);
const T0 = Date.UTC(2026, 10, 21, 14, 0, 0);
const WINDOW = 61_000;

let workspaceCount = 0;
function workspace(): string {
  workspaceCount += 1;
  return `ws-${workspaceCount}`;
}

function setup(start = T0): { clock: ManualClock; budget: RedisRequestBudget; ws: string } {
  const clock = new ManualClock(start);
  return { clock, budget: new RedisRequestBudget({ redis, prefix, clock }), ws: workspace() };
}

describe('RedisRequestBudget: monthly quota', () => {
  it('stops background polls at the ceiling and lets interactive calls use the reserve', async () => {
    const { budget, ws } = setup();
    const background = { perMinute: 100, perMonth: 10, monthCeiling: 10 * (1 - 0.25) };
    const granted = [];
    for (let i = 0; i < 9; i++) granted.push((await budget.tryAcquire(ws, background)).granted);
    expect(granted).toEqual([true, true, true, true, true, true, true, false, false]);
    expect(await budget.tryAcquire(ws, background)).toEqual({
      granted: false,
      reason: 'month',
      retryAtMs: Date.UTC(2026, 11, 1),
    });
    const interactive = { perMinute: 100, perMonth: 10 };
    expect(await budget.tryAcquire(ws, interactive, 2)).toEqual({
      granted: true,
      minuteUsed: 9,
      monthUsed: 9,
    });
    expect(await budget.tryAcquire(ws, interactive)).toEqual({
      granted: true,
      minuteUsed: 10,
      monthUsed: 10,
    });
    expect(await budget.tryAcquire(ws, interactive)).toMatchObject({ granted: false, reason: 'month' });
    expect(await budget.usage(ws, background)).toMatchObject({ monthUsed: 10, monthRemaining: 0 });
    // 100000 × (1 − 0.34) is 65999.99999999999 in floating point: the ceiling is still 66000.
    const fractional = { perMinute: 100, perMonth: 100_000, monthCeiling: 100_000 * (1 - 0.34) };
    expect(await budget.usage(workspace(), fractional)).toMatchObject({ monthRemaining: 66_000 });
  });

  it('starts a new count at the UTC month boundary, and across a year end', async () => {
    const { clock, budget, ws } = setup(Date.UTC(2026, 11, 31, 23, 59, 59, 999));
    const limits = { perMinute: 100, perMonth: 2 };
    await budget.tryAcquire(ws, limits, 2);
    expect(await budget.tryAcquire(ws, limits)).toEqual({
      granted: false,
      reason: 'month',
      retryAtMs: Date.UTC(2027, 0, 1),
    });
    expect(await budget.usage(ws)).toMatchObject({
      month: '2026-12',
      monthUsed: 2,
      monthResetAtMs: Date.UTC(2027, 0, 1),
    });
    clock.set(Date.UTC(2027, 0, 1));
    // The month resets; the sliding window does not (both grants are 1 ms old).
    expect(await budget.tryAcquire(ws, limits)).toEqual({ granted: true, minuteUsed: 3, monthUsed: 1 });
    expect(await budget.usage(ws)).toMatchObject({
      month: '2027-01',
      monthUsed: 1,
      monthResetAtMs: Date.UTC(2027, 1, 1),
    });
  });

  it('raises the month counter to what the API reports, never lowers it', async () => {
    const { budget, ws } = setup();
    const limits = { perMinute: 100, perMonth: 50 };
    await budget.tryAcquire(ws, limits, 5);
    expect(await budget.syncMonthUsed(ws, 3)).toBe(5);
    expect(await budget.syncMonthUsed(ws, 48)).toBe(48);
    expect(await budget.tryAcquire(ws, limits, 2)).toMatchObject({ granted: true, monthUsed: 50 });
    expect(await budget.tryAcquire(ws, limits)).toMatchObject({ granted: false, reason: 'month' });
  });

  it('sets TTLs on every key so they expire after their month or window', async () => {
    const { budget, ws } = setup();
    await budget.tryAcquire(ws, { perMinute: 5, perMonth: 50 });
    const keys = budgetKeys(prefix, ws);
    const windowTtl = await redis.pttl(keys.window);
    expect(windowTtl).toBeGreaterThan(WINDOW);
    expect(windowTtl).toBeLessThanOrEqual(WINDOW + 3_600_000);
    const monthTtl = await redis.pttl(keys.month('2026-11'));
    const toMonthEnd = Date.UTC(2026, 11, 1) - T0;
    expect(monthTtl).toBeGreaterThan(toMonthEnd);
    expect(monthTtl).toBeLessThanOrEqual(toMonthEnd + 86_400_000);

    await budget.pauseUntil(ws, T0 + 30_000, 'rate_limited');
    const pauseTtl = await redis.pttl(keys.pause);
    expect(pauseTtl).toBeGreaterThan(30_000);
    expect(pauseTtl).toBeLessThanOrEqual(30_000 + 3_600_000);
    await budget.pauseUntil(ws, Number.POSITIVE_INFINITY, 'unauthorized');
    expect(await redis.pttl(keys.pause)).toBe(-1);
  });
});

describe('RedisRequestBudget: pause', () => {
  it('refuses everything until the pause ends, and a shorter pause never shortens it', async () => {
    const { clock, budget, ws } = setup();
    const limits = { perMinute: 10, perMonth: 100 };
    await budget.pauseUntil(ws, T0 + 30_000, 'rate_limited');
    const paused = { granted: false, reason: 'paused', retryAtMs: T0 + 30_000, pauseReason: 'rate_limited' };
    expect(await budget.tryAcquire(ws, limits)).toEqual(paused);
    await budget.pauseUntil(ws, T0 + 10_000, 'rate_limited');
    expect(await budget.tryAcquire(ws, limits)).toEqual(paused);
    await budget.pauseUntil(ws, T0 + 45_000, 'quota_exceeded');
    expect(await budget.tryAcquire(ws, limits)).toEqual({
      ...paused,
      retryAtMs: T0 + 45_000,
      pauseReason: 'quota_exceeded',
    });
    expect(await budget.usage(ws)).toMatchObject({
      pausedUntilMs: T0 + 45_000,
      pauseReason: 'quota_exceeded',
    });
    clock.set(T0 + 45_000 - 1);
    expect((await budget.tryAcquire(ws, limits)).granted).toBe(false);
    clock.set(T0 + 45_000);
    expect(await budget.tryAcquire(ws, limits)).toEqual({ granted: true, minuteUsed: 1, monthUsed: 1 });
    expect(await budget.usage(ws)).toMatchObject({ pausedUntilMs: null, pauseReason: null });
  });

  it('releases no burst when a pause ends: grants before it still count', async () => {
    const { clock, budget, ws } = setup();
    const limits = { perMinute: 5, perMonth: 100 };
    const grants: number[] = [];
    const attempt = async () => {
      const decision = await budget.tryAcquire(ws, limits);
      if (decision.granted) grants.push(clock.now());
      return decision;
    };
    for (let i = 0; i < 3; i++) await attempt();
    clock.advance(1_000);
    await budget.pauseUntil(ws, clock.now() + 20_000, 'rate_limited');
    clock.set(T0 + 21_000);
    const afterPause = [];
    for (let i = 0; i < 10; i++) afterPause.push(await attempt());
    expect(afterPause.filter((d) => d.granted)).toHaveLength(2);
    expect(afterPause[2]).toEqual({ granted: false, reason: 'minute', retryAtMs: T0 + WINDOW });
    for (let at = T0 + 21_000; at < T0 + 200_000; at += 500) {
      clock.set(at);
      await attempt();
    }
    expect(maxGrantsInAnySpan(grants, WINDOW)).toBe(5);
  });

  it('holds an open-ended (401) pause until resume, pointing retries a little ahead', async () => {
    const { clock, budget, ws } = setup();
    const limits = { perMinute: 10, perMonth: 100 };
    await budget.pauseUntil(ws, Number.POSITIVE_INFINITY, 'unauthorized');
    clock.advance(40 * 86_400_000);
    await budget.pauseUntil(ws, clock.now() + 5_000, 'rate_limited');
    expect(await budget.tryAcquire(ws, limits)).toEqual({
      granted: false,
      reason: 'paused',
      retryAtMs: clock.now() + 5 * 60_000,
      pauseReason: 'unauthorized',
    });
    expect(await budget.usage(ws)).toMatchObject({
      pausedUntilMs: Number.POSITIVE_INFINITY,
      pauseReason: 'unauthorized',
    });
    await budget.resume(ws);
    expect((await budget.tryAcquire(ws, limits)).granted).toBe(true);
  });

  it('ignores a pause that has already ended and keeps workspaces apart', async () => {
    const { budget, ws } = setup();
    const other = workspace();
    await budget.pauseUntil(ws, T0 - 1, 'rate_limited');
    expect((await budget.tryAcquire(ws, { perMinute: 1, perMonth: 10 })).granted).toBe(true);
    await budget.pauseUntil(ws, T0 + 60_000, 'rate_limited');
    expect((await budget.tryAcquire(other, { perMinute: 1, perMonth: 10 })).granted).toBe(true);
    expect(await redis.exists(budgetKeys(prefix, other).pause)).toBe(0);
  });
});

describe('budgetGate', () => {
  it('lets a request through or throws the decision for the poller to delay on', async () => {
    const { clock, budget, ws } = setup();
    const gate = budgetGate(budget, ws, { perMinute: 2, perMonth: 100 });
    await gate({ path: '/v1/books/B0CJ4XQ2ZK' });
    await gate();
    clock.advance(1_000);
    const error = await gate().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect(error).toMatchObject({
      workspace: ws,
      reason: 'minute',
      retryAtMs: T0 + WINDOW,
      retryAfterMs: WINDOW - 1_000,
      pauseReason: undefined,
    });
    await budget.pauseUntil(ws, T0 + 90_000, 'rate_limited');
    await expect(gate()).rejects.toMatchObject({
      reason: 'paused',
      pauseReason: 'rate_limited',
      retryAtMs: T0 + 90_000,
    });
  });

  it('reads limits through a function on every request', async () => {
    const { budget, ws } = setup();
    let ceiling = 1;
    const gate = budgetGate(budget, ws, () => ({ perMinute: 10, perMonth: 100, monthCeiling: ceiling }));
    await gate();
    await expect(gate()).rejects.toMatchObject({ reason: 'month', retryAtMs: Date.UTC(2026, 11, 1) });
    ceiling = 100;
    await gate();
  });
});
