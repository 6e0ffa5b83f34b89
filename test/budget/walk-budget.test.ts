/**
 * A poll's walk and the budget: its learned cost reserved in one grant and the unused part given
 * back, a full minute window waited out mid-walk instead of thrown away, and what is thrown away
 * (a pause mid-walk) reported.
 */
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError, budgetGate, walkWithinBudget } from '../../src/budget/gate.ts';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { acceleratedClock, type Clock, ManualClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('walk');
const redis = testRedis(prefix);
let count = 0;
function workspace(): string {
  count += 1;
  return `ws-walk-${count}`;
}

function setup(clock: Clock, perMinute: number) {
  const ws = workspace();
  const budget = new RedisRequestBudget({ redis, prefix, clock });
  const limits = { perMinute, perMonth: 1000 };
  const gate = budgetGate(budget, ws, limits);
  const wasted: number[] = [];
  const walkOf = (costPerPoll: number | null, pages: number) =>
    walkWithinBudget(
      {
        budget,
        workspace: ws,
        limits,
        costPerPoll,
        signal: new AbortController().signal,
        onWasted: (n) => wasted.push(n),
      },
      async () => {
        for (let page = 0; page < pages; page++) await gate();
        return pages;
      },
    );
  return { ws, budget, limits, gate, wasted, walkOf };
}

describe('walkWithinBudget', () => {
  it('reserves the learned cost in one grant and gives back what the walk did not use', async () => {
    const { ws, budget, walkOf } = setup(new ManualClock(Date.UTC(2026, 10, 2)), 10);
    expect(await walkOf(4.3, 3)).toBe(3);
    expect(await budget.usage(ws)).toMatchObject({ minuteUsed: 3, monthUsed: 3 });
  });

  it('a reserved request takes its place in the window when it goes out, not when it was reserved', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 2));
    const { ws, budget, gate, limits } = setup(clock, 10);
    await walkWithinBudget(
      { budget, workspace: ws, limits, costPerPoll: 3, signal: new AbortController().signal },
      async () => {
        clock.advance(30_000);
        await gate();
      },
    );
    // A window after the reservation the page sent 30 s into the walk still counts, as the API's does.
    clock.advance(40_000);
    expect(await budget.usage(ws)).toMatchObject({ minuteUsed: 1, monthUsed: 1 });
  });

  it('does not start a walk the window has no room for: nothing sent, nothing wasted', async () => {
    const { ws, budget, limits, walkOf, wasted } = setup(new ManualClock(Date.UTC(2026, 10, 2)), 5);
    expect((await budget.tryAcquire(ws, limits, 3)).granted).toBe(true);
    await expect(walkOf(4, 4)).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(await budget.usage(ws)).toMatchObject({ minuteUsed: 3, monthUsed: 3 });
    expect(wasted).toEqual([]);
  });

  it('a walk past its reservation waits for the window and finishes from where it was', async () => {
    // 1000×: the 61 s window is 61 ms of real time.
    const { ws, budget, walkOf, wasted } = setup(acceleratedClock(Date.UTC(2026, 10, 2), 1000), 2);
    expect(await walkOf(null, 5)).toBe(5);
    expect((await budget.usage(ws)).monthUsed).toBe(5);
    expect(wasted).toEqual([]);
  });

  it('a pause mid-walk ends it, and the requests it sent are reported wasted', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 2));
    const { ws, budget, gate, limits, wasted } = setup(clock, 10);
    const walk = walkWithinBudget(
      {
        budget,
        workspace: ws,
        limits,
        costPerPoll: 2,
        signal: new AbortController().signal,
        onWasted: (n) => wasted.push(n),
      },
      async () => {
        await gate();
        await gate();
        await budget.pauseUntil(ws, clock.now() + 30_000, 'rate_limited');
        await gate();
      },
    );
    await expect(walk).rejects.toMatchObject({ reason: 'paused' });
    expect(wasted).toEqual([2]);
  });
});
