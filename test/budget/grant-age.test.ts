/**
 * A request holds its place in the minute window from when its answer came, not only from its
 * grant: a request that reached the API late (a worker starved of CPU between grant and send, a new
 * connection, an API slow to read it) was counted by the API in a minute the window had already
 * let go of it, and the grant made then was one too many. Here a manual clock moves while the
 * request is out: granted at 0 s and answered at 3 s, it keeps the window full until 64 s, and no
 * 60 s ever holds more requests than the plan allows, counted when sent or when answered.
 */
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BudgetExhaustedError, budgetGate, walkWithinBudget } from '../../src/budget/gate.ts';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { maxGrantsInAnySpan } from './budget-helpers.ts';

const prefix = testPrefix('grant-age');
const redis = testRedis(prefix);
const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const LATE_MS = 3_000;

describe('a request answered late', () => {
  it.each([
    ['a single request', null],
    ['a walk’s reserved page', 1],
  ] as const)('%s holds the window until a window after its answer', async (_, costPerPoll) => {
    const clock = new ManualClock(T0);
    const ws = `ws-late-${String(costPerPoll)}`;
    const budget = new RedisRequestBudget({ redis, prefix, clock });
    const limits = { perMinute: 2, perMonth: 1_000 };
    const gate = budgetGate(budget, ws, limits);
    const sent: number[] = [];
    const answered: number[] = [];
    // One request as the client sends it: the gate, the time on the way, then what the gate handed back.
    const request = (wayMs: number) => async () => {
      const done = await gate();
      sent.push(clock.now() - T0);
      clock.advance(wayMs);
      answered.push(clock.now() - T0);
      await done();
    };
    const send = async (wayMs = 0) => {
      if (costPerPoll === null) return request(wayMs)();
      const signal = new AbortController().signal;
      return walkWithinBudget({ budget, workspace: ws, limits, costPerPoll, signal }, request(wayMs));
    };

    await send(LATE_MS); // sent at 0 s, answered at 3 s
    clock.set(T0 + 10_000);
    await send(); // 10 s
    // 61.5 s: a window after the send, not after the answer. The API's minute may still hold both.
    clock.set(T0 + 61_500);
    await expect(send()).rejects.toBeInstanceOf(BudgetExhaustedError);
    clock.set(T0 + LATE_MS + 61_000);
    await send();
    expect(answered.at(-1)).toBe(LATE_MS + 61_000);
    expect(maxGrantsInAnySpan(answered, 60_000)).toBeLessThanOrEqual(limits.perMinute);
    expect(maxGrantsInAnySpan(sent, 60_000)).toBeLessThanOrEqual(limits.perMinute);
  });

  it('is put back in the window when it had left it before its answer came (a stall longer than the window)', async () => {
    const clock = new ManualClock(T0);
    const budget = new RedisRequestBudget({ redis, prefix, clock });
    const limits = { perMinute: 2, perMonth: 1_000 };
    const gate = budgetGate(budget, 'ws-stalled', limits);
    const stalled = await gate(); // granted at 0 s, then the process stalls before it is answered
    clock.set(T0 + 61_500);
    const next = await gate(); // the stalled grant has left the window: this one is granted
    await next();
    clock.set(T0 + 62_000);
    await stalled(); // answered at 62 s: the API counted it, so the window holds it again from now
    clock.set(T0 + 100_000);
    await expect(gate()).rejects.toBeInstanceOf(BudgetExhaustedError);
    clock.set(T0 + 62_000 + 61_000);
    await expect(gate()).resolves.toBeTypeOf('function');
  });

  it('does not hold its answer until Redis is back to be stamped (the connection retries forever)', async () => {
    // A port nothing listens on: the stamp's command waits in ioredis's queue, as in an outage.
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const away = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: null, retryStrategy: () => 200 });
    away.on('error', () => undefined);
    onTestFinished(() => away.disconnect());
    const clock = new ManualClock(T0);
    const live = new RedisRequestBudget({ redis, prefix, clock });
    const stamps = new RedisRequestBudget({ redis: away, prefix, clock });
    const budget = {
      clock,
      windowMs: live.windowMs,
      tryAcquire: live.tryAcquire.bind(live),
      reserve: live.reserve.bind(live),
      restamp: live.restamp.bind(live),
      refund: live.refund.bind(live),
      answered: stamps.answered.bind(stamps),
    };
    const done = await budgetGate(budget, 'ws-redis-away', { perMinute: 2, perMonth: 1_000 })();
    const started = Date.now();
    await done();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
