import { describe, expect, it } from 'vitest';
import { type BudgetLimits, RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { seededRandom } from '../../src/sim/prng.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { maxGrantsInAnySpan, WindowModel } from './budget-helpers.ts';

const prefix = testPrefix('budget');
const redis = testRedis(prefix);
const T0 = Date.UTC(2026, 10, 21, 14, 0, 0);
const WINDOW = 61_000;

let workspaceCount = 0;
/** A fresh workspace per test, so tests never see each other's counters. */
function workspace(): string {
  workspaceCount += 1;
  return `ws-${workspaceCount}`;
}

function makeBudget(clock = new ManualClock(T0), connection = redis): RedisRequestBudget {
  return new RedisRequestBudget({ redis: connection, prefix, clock });
}

describe('RedisRequestBudget: per-minute sliding window', () => {
  it('grants perMinute at one instant, then refuses until the oldest grant leaves the window', async () => {
    const clock = new ManualClock(T0);
    const budget = makeBudget(clock);
    const ws = workspace();
    const limits = { perMinute: 3, perMonth: 1000 };
    for (let i = 1; i <= 3; i++) {
      expect(await budget.tryAcquire(ws, limits)).toEqual({ granted: true, minuteUsed: i, monthUsed: i });
    }
    expect(await budget.tryAcquire(ws, limits)).toEqual({
      granted: false,
      reason: 'minute',
      retryAtMs: T0 + WINDOW,
    });
  });

  it('gives the exact retry time: granted at retryAtMs, refused 1 ms before', async () => {
    const clock = new ManualClock(T0);
    const budget = makeBudget(clock);
    const ws = workspace();
    const limits = { perMinute: 3, perMonth: 1000 };
    for (const at of [0, 10_000, 20_000]) {
      clock.set(T0 + at);
      expect((await budget.tryAcquire(ws, limits)).granted).toBe(true);
    }
    clock.set(T0 + 30_000);
    const refused = await budget.tryAcquire(ws, limits);
    expect(refused).toEqual({ granted: false, reason: 'minute', retryAtMs: T0 + WINDOW });
    clock.set(T0 + WINDOW - 1);
    expect(await budget.tryAcquire(ws, limits)).toMatchObject({ granted: false, retryAtMs: T0 + WINDOW });
    clock.set(T0 + WINDOW);
    expect(await budget.tryAcquire(ws, limits)).toEqual({ granted: true, minuteUsed: 3, monthUsed: 4 });
    // Now the second grant (at +10 s) is the oldest in the window.
    expect(await budget.tryAcquire(ws, limits)).toEqual({
      granted: false,
      reason: 'minute',
      retryAtMs: T0 + 10_000 + WINDOW,
    });
  });

  it('for a batch, waits until enough grants have left', async () => {
    const clock = new ManualClock(T0);
    const budget = makeBudget(clock);
    const ws = workspace();
    const limits = { perMinute: 4, perMonth: 1000 };
    for (const at of [0, 5_000, 9_000]) {
      clock.set(T0 + at);
      await budget.tryAcquire(ws, limits);
    }
    clock.set(T0 + 10_000);
    // 3 in the window, 3 wanted, 4 allowed: the two oldest must leave, the later at +5 s.
    expect(await budget.tryAcquire(ws, limits, 3)).toEqual({
      granted: false,
      reason: 'minute',
      retryAtMs: T0 + 5_000 + WINDOW,
    });
    clock.set(T0 + 5_000 + WINDOW);
    expect(await budget.tryAcquire(ws, limits, 3)).toEqual({ granted: true, minuteUsed: 4, monthUsed: 6 });
  });

  it('never grants more than perMinute in any window, and matches a reference model exactly', async () => {
    for (const seed of [1, 7, 42]) {
      const random = seededRandom(seed);
      const clock = new ManualClock(T0);
      const budget = makeBudget(clock);
      const ws = workspace();
      const perMinute = 2 + Math.floor(random() * 9);
      const limits = { perMinute, perMonth: 1_000_000 };
      const model = new WindowModel(perMinute, WINDOW);
      const grants: number[] = [];
      for (let i = 0; i < 600; i++) {
        // Mostly bursts (same or nearby ms), now and then a long quiet stretch.
        const r = random();
        clock.advance(r < 0.3 ? 0 : r < 0.9 ? Math.floor(random() * 4_000) : Math.floor(random() * 90_000));
        const count = random() < 0.8 ? 1 : 1 + Math.floor(random() * Math.min(3, perMinute));
        const expected = model.acquire(clock.now(), count);
        const decision = await budget.tryAcquire(ws, limits, count);
        if (expected === null) {
          expect(decision.granted, `seed ${seed} step ${i}`).toBe(true);
          for (let k = 0; k < count; k++) grants.push(clock.now());
        } else {
          expect(decision, `seed ${seed} step ${i}`).toEqual({
            granted: false,
            reason: 'minute',
            retryAtMs: expected,
          });
          expect(expected).toBeGreaterThan(clock.now());
        }
      }
      expect(grants.length).toBeGreaterThan(perMinute * 5);
      expect(maxGrantsInAnySpan(grants, WINDOW)).toBe(perMinute);
      expect(maxGrantsInAnySpan(grants, 60_000)).toBeLessThanOrEqual(perMinute);
    }
  });

  it('shares one limit between connections acquiring in parallel', async () => {
    const clock = new ManualClock(T0);
    const budgets = [redis, testRedis(prefix), testRedis(prefix), testRedis(prefix)].map((c) =>
      makeBudget(clock, c),
    );
    const ws = workspace();
    const limits = { perMinute: 60, perMonth: 100_000 };
    const burst = async () =>
      Promise.all(Array.from({ length: 400 }, (_, i) => budgets[i % budgets.length]!.tryAcquire(ws, limits)));

    const first = await burst();
    expect(first.filter((d) => d.granted)).toHaveLength(60);
    const used = first.flatMap((d) => (d.granted ? [d.monthUsed] : [])).sort((a, b) => a - b);
    expect(used).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    for (const d of first)
      if (!d.granted) expect(d).toEqual({ granted: false, reason: 'minute', retryAtMs: T0 + WINDOW });

    clock.advance(30_000);
    expect((await burst()).filter((d) => d.granted)).toHaveLength(0);
    clock.set(T0 + WINDOW);
    expect((await burst()).filter((d) => d.granted)).toHaveLength(60);
    expect((await budgets[0]!.usage(ws)).monthUsed).toBe(120);
  });

  it('shares one month counter between connections acquiring in parallel', async () => {
    const clock = new ManualClock(T0);
    const budgets = [redis, testRedis(prefix), testRedis(prefix)].map((c) => makeBudget(clock, c));
    const ws = workspace();
    const limits = { perMinute: 1000, perMonth: 137 };
    const decisions = await Promise.all(
      Array.from({ length: 450 }, (_, i) => budgets[i % budgets.length]!.tryAcquire(ws, limits)),
    );
    expect(decisions.filter((d) => d.granted)).toHaveLength(137);
    expect(decisions.filter((d) => !d.granted && d.reason === 'month')).toHaveLength(450 - 137);
  });

  it('keeps workspaces apart, including ids with separators and braces', async () => {
    const budget = makeBudget();
    const limits = { perMinute: 1, perMonth: 10 };
    const ids = [workspace(), 'acme:b', 'acme', '{acme}', 'acme}b'];
    for (const id of ids) expect((await budget.tryAcquire(id, limits)).granted, id).toBe(true);
    for (const id of ids) expect((await budget.tryAcquire(id, limits)).granted, id).toBe(false);
  });

  it('rejects impossible requests instead of refusing them forever', async () => {
    const budget = makeBudget();
    await expect(budget.tryAcquire(workspace(), { perMinute: 3, perMonth: 10 }, 4)).rejects.toThrow(
      RangeError,
    );
    await expect(budget.tryAcquire(workspace(), { perMinute: 0, perMonth: 10 })).rejects.toThrow(RangeError);
    await expect(budget.tryAcquire('', { perMinute: 1, perMonth: 10 })).rejects.toThrow(RangeError);
  });

  it('reloads its script after SCRIPT FLUSH', async () => {
    const budget = makeBudget();
    const ws = workspace();
    const limits: BudgetLimits = { perMinute: 5, perMonth: 10 };
    expect((await budget.tryAcquire(ws, limits)).granted).toBe(true);
    await redis.script('FLUSH');
    expect(await budget.tryAcquire(ws, limits)).toEqual({ granted: true, minuteUsed: 2, monthUsed: 2 });
  });
});
