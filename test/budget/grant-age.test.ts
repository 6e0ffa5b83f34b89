/**
 * A grant whose request goes out late (the process starved of CPU between Redis's answer and the
 * send) is stamped again before it goes, so the request occupies the window from when it is sent,
 * as the API counts it. Without that, a request granted at 0 s and sent at 3 s left the window at
 * 61 s and the grant given then put three requests into one 60 s on a plan of two.
 */
import { describe, expect, it } from 'vitest';
import type { BudgetGrant, GatedBudget } from '../../src/budget/budget-types.ts';
import {
  BudgetExhaustedError,
  budgetGate,
  GRANT_MAX_AGE_MS,
  walkWithinBudget,
} from '../../src/budget/gate.ts';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { maxGrantsInAnySpan } from './budget-helpers.ts';

const prefix = testPrefix('grant-age');
const redis = testRedis(prefix);
const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const STALL_MS = 3_000;
let count = 0;

type Stalled = 'reserve' | 'restamp';

/**
 * The Redis budget, with the clock moved on by `stall.ms` once, after the next answer of `stall.on`:
 * the time a starved process spends between the grant and the send.
 */
function stallingBudget(clock: ManualClock) {
  const real = new RedisRequestBudget({ redis, prefix, clock });
  const stall = { on: 'reserve' as Stalled, ms: 0 };
  const after = <T>(on: Stalled, answer: T): T => {
    if (stall.on === on && stall.ms > 0) {
      clock.advance(stall.ms);
      stall.ms = 0;
    }
    return answer;
  };
  const budget: GatedBudget = {
    clock,
    windowMs: real.windowMs,
    tryAcquire: (ws, limits, n) => real.tryAcquire(ws, limits, n),
    reserve: async (ws, limits, n) => after('reserve', await real.reserve(ws, limits, n)),
    restamp: async (grant: BudgetGrant, index: number) => after('restamp', await real.restamp(grant, index)),
    refund: (grant, unused) => real.refund(grant, unused),
  };
  return { budget, stall };
}

describe('a grant sent late', () => {
  it.each([
    ['a single request (stalled after its grant)', 'reserve', null],
    ['a walk’s reserved page (stalled after its stamp)', 'restamp', 1],
  ] as const)('%s is stamped when it goes: no 60 s holds more than the plan', async (_, on, costPerPoll) => {
    const clock = new ManualClock(T0);
    count += 1;
    const ws = `ws-age-${count}`;
    const { budget, stall } = stallingBudget(clock);
    const limits = { perMinute: 2, perMonth: 1_000 };
    const gate = budgetGate(budget, ws, limits);
    const sent: number[] = [];
    // One request as the poller sends it: inside its walk (reserved) or on its own.
    const send = async () => {
      const request = async () => {
        await gate();
        sent.push(clock.now() - T0);
      };
      if (costPerPoll === null) return request();
      const signal = new AbortController().signal;
      return walkWithinBudget({ budget, workspace: ws, limits, costPerPoll, signal }, request);
    };

    stall.on = on;
    stall.ms = STALL_MS;
    await send(); // granted at 0 s, handed to the client at 3 s
    clock.advance(10_000 - STALL_MS);
    await send(); // 10 s
    // 61.5 s: a window after the grant, but not after the send. The API's minute still holds both.
    clock.advance(51_500);
    await expect(send()).rejects.toBeInstanceOf(BudgetExhaustedError);
    clock.set(T0 + STALL_MS + 61_000);
    await send();
    expect(sent).toEqual([STALL_MS, 10_000, STALL_MS + 61_000]);
    expect(maxGrantsInAnySpan(sent, 60_000)).toBeLessThanOrEqual(limits.perMinute);
  });

  it('a grant handed over within the age limit is not stamped again', async () => {
    const clock = new ManualClock(T0);
    const ws = 'ws-age-fresh';
    const { budget, stall } = stallingBudget(clock);
    let restamps = 0;
    const counted: GatedBudget = {
      ...budget,
      restamp: (grant, index) => {
        restamps += 1;
        return budget.restamp(grant, index);
      },
    };
    stall.ms = GRANT_MAX_AGE_MS;
    await budgetGate(counted, ws, { perMinute: 2, perMonth: 1_000 })();
    expect(restamps).toBe(0);
    stall.ms = GRANT_MAX_AGE_MS + 1;
    await budgetGate(counted, ws, { perMinute: 2, perMonth: 1_000 })();
    expect(restamps).toBe(1);
  });
});
