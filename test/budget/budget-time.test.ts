/**
 * One clock for the shared budget and channel pacing: Redis TIME inside the scripts, so a worker
 * whose clock is off still sees the others' grants and bookings; and the API's own count of its
 * minute refilling a window that Redis lost.
 */
import { describe, expect, it } from 'vitest';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { ChannelPacer } from '../../src/deliver/pacing.ts';
import { acceleratedClock, type Clock, systemClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('budget-time');
const redis = testRedis(prefix);
const limits = { perMinute: 3, perMonth: 1000 };

/** The system clock, `offsetMs` off: a worker host whose clock is wrong. */
function skewed(offsetMs: number): Clock {
  return { now: () => Date.now() + offsetMs, speed: 1, fromReal: (ms) => ms + offsetMs };
}

let count = 0;
function workspace(): string {
  count += 1;
  return `ws-time-${count}`;
}

describe('the budget window on Redis TIME', () => {
  it('a worker 65 s ahead still counts the grants made now by one on time', async () => {
    const ws = workspace();
    const onTime = new RedisRequestBudget({ redis, prefix, clock: systemClock });
    const ahead = new RedisRequestBudget({ redis, prefix, clock: skewed(65_000) });
    for (let i = 0; i < 3; i++) expect((await onTime.tryAcquire(ws, limits)).granted).toBe(true);
    const refused = await ahead.tryAcquire(ws, limits);
    expect(refused).toMatchObject({ granted: false, reason: 'minute' });
    // The retry time is in the asking worker's own clock: about a window from its now.
    const retryIn = refused.granted ? 0 : refused.retryAtMs - (Date.now() + 65_000);
    expect(retryIn).toBeGreaterThan(55_000);
    expect(retryIn).toBeLessThanOrEqual(61_000);
  });

  it('a worker 65 s behind does not see its own grants leave early', async () => {
    const ws = workspace();
    const behind = new RedisRequestBudget({ redis, prefix, clock: skewed(-65_000) });
    const onTime = new RedisRequestBudget({ redis, prefix, clock: systemClock });
    for (let i = 0; i < 3; i++) expect((await behind.tryAcquire(ws, limits)).granted).toBe(true);
    expect(await onTime.tryAcquire(ws, limits)).toMatchObject({ granted: false, reason: 'minute' });
    expect((await onTime.usage(ws)).minuteUsed).toBe(3);
  });

  it('an accelerated clock keeps its own minute: 61 clock-s is 61 ms at 1000×', async () => {
    const ws = workspace();
    const clock = acceleratedClock(Date.UTC(2026, 10, 1), 1000);
    const budget = new RedisRequestBudget({ redis, prefix, clock });
    for (let i = 0; i < 3; i++) expect((await budget.tryAcquire(ws, limits)).granted).toBe(true);
    const refused = await budget.tryAcquire(ws, limits);
    expect(refused.granted).toBe(false);
    if (refused.granted) return;
    expect(refused.retryAtMs - clock.now()).toBeLessThanOrEqual(61_000);
    const deadline = Date.now() + 5_000;
    while (!(await budget.tryAcquire(ws, limits)).granted) {
      if (Date.now() > deadline) throw new Error('the window never turned over');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });

  it('a pause set by a worker ahead lasts as long for everyone', async () => {
    const ws = workspace();
    const ahead = new RedisRequestBudget({ redis, prefix, clock: skewed(65_000) });
    const onTime = new RedisRequestBudget({ redis, prefix, clock: systemClock });
    await ahead.pauseUntil(ws, Date.now() + 65_000 + 20_000, 'rate_limited');
    const refused = await onTime.tryAcquire(ws, limits);
    expect(refused).toMatchObject({ granted: false, reason: 'paused', pauseReason: 'rate_limited' });
    const left = refused.granted ? 0 : refused.retryAtMs - Date.now();
    expect(left).toBeGreaterThan(15_000);
    expect(left).toBeLessThanOrEqual(20_000);
    // Each call converts Redis time to clock time on its own: apart by the calls' latencies at most.
    const shown = (await onTime.usage(ws)).pausedUntilMs ?? 0;
    expect(Math.abs(shown - (refused.granted ? 0 : refused.retryAtMs))).toBeLessThanOrEqual(100);
  });
});

describe('channel pacing on Redis TIME', () => {
  it('a worker 65 s ahead does not take over a slot booked now by one on time', async () => {
    const onTime = new ChannelPacer(redis, prefix, systemClock);
    const clock = skewed(65_000);
    const ahead = new ChannelPacer(redis, prefix, clock);
    const booking = await onTime.acquire('slack-a', Date.now(), 1_100);
    expect(typeof booking).toBe('object');
    expect(typeof (await ahead.acquire('slack-a', clock.now(), 1_100))).toBe('number');
    if (typeof booking === 'number') return;
    await onTime.release(booking, Date.now());
    // Released: the next message may go an interval later, in the asking worker's clock.
    const next = await ahead.acquire('slack-a', clock.now(), 1_100);
    expect(typeof next).toBe('number');
    expect(Number(next) - clock.now()).toBeLessThanOrEqual(1_100 + 1);
  });
});

describe('the API count of its minute', () => {
  it('refills a window that Redis lost (a crash), so the budget refuses before the API would', async () => {
    const ws = workspace();
    const budget = new RedisRequestBudget({ redis, prefix, clock: systemClock });
    const plan = { perMinute: 5, perMonth: 1000 };
    for (let i = 0; i < 3; i++) expect((await budget.tryAcquire(ws, plan)).granted).toBe(true);
    // The crash took the window with it; the API still counts 3 (then 4 with the next request).
    await redis.del(`${prefix}:budget:${ws}:window`);
    expect((await budget.tryAcquire(ws, plan)).granted).toBe(true);
    expect(await budget.syncMinuteUsed(ws, 4)).toBe(3);
    expect((await budget.tryAcquire(ws, plan)).granted).toBe(true);
    expect(await budget.tryAcquire(ws, plan)).toMatchObject({ granted: false, reason: 'minute' });
    // A count the window already holds adds nothing.
    expect(await budget.syncMinuteUsed(ws, 5)).toBe(0);
  });

  it('lets the refilled grants go when the API says its minute ends, not a full window later', async () => {
    const ws = workspace();
    const budget = new RedisRequestBudget({ redis, prefix, clock: systemClock });
    const plan = { perMinute: 5, perMonth: 1000 };
    // After a FLUSHALL: the API counts 5 in a minute that ends in 2 s; the window is empty.
    expect(await budget.syncMinuteUsed(ws, 5, Date.now() + 2_000)).toBe(5);
    const refused = await budget.tryAcquire(ws, plan);
    expect(refused).toMatchObject({ granted: false, reason: 'minute' });
    // Stamped at now, the grants would hold the room for 61 s (the refill idled 26 s with room left).
    const retryIn = refused.granted ? 0 : refused.retryAtMs - Date.now();
    expect(retryIn).toBeLessThanOrEqual(2_100);
    await new Promise((resolveTick) => setTimeout(resolveTick, Math.max(0, retryIn) + 50));
    expect((await budget.tryAcquire(ws, plan)).granted).toBe(true);
  });
});
