/**
 * errors.monthWhen: a dialect that sends the month's 429 and the minute's under one error code tells
 * them apart by a field of its body; the client reads the month's as a month pause (scope month), the
 * minute's as a minute wait. Served by the simulator in that dialect (`sim --contract`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  type ContractFile,
  createAnalyticsClient,
  parseContract,
  RateLimitedError,
} from '../../src/api/index.ts';
import { parsePlan, type RunningSimulator, SimControlClient, startSimulator } from '../../src/sim/index.ts';
import { createSimDialect } from '../../src/tools/probe/index.ts';

const dialect: ContractFile = {
  version: 1,
  endpoints: { error: { root: '', fields: { code: 'type', message: 'detail' } } },
  errors: {
    codes: { TOO_MANY_REQUESTS: 'rate_limited' },
    monthWhen: { path: 'limitScope', equals: 'MONTHLY' },
  },
};

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function rejection(read: () => Promise<unknown>): Promise<unknown> {
  try {
    await read();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('errors.monthWhen', () => {
  it("tells the month's 429 from the minute's by a body field, both under one code", async () => {
    const load = parseContract(dialect, 'dialect.yaml');
    if (!load.ok) throw new Error(JSON.stringify(load.problems));
    const start = async (plan: string): Promise<{ sim: RunningSimulator; client: AnalyticsClient }> => {
      const sim = await startSimulator({
        port: 0,
        seed: 3,
        books: 1,
        speed: 0,
        keys: [{ key: 'sk_month_429_0123456789', workspace: 'ws', plan: parsePlan(plan) }],
        dialect: createSimDialect(load.contract),
      });
      const client = createAnalyticsClient({
        baseUrl: sim.url,
        apiKey: 'sk_month_429_0123456789',
        transientRetryDelayMs: 0,
        contract: load.contract,
      });
      closers.push(
        () => sim.close(),
        () => client.close(),
      );
      return { sim, client };
    };
    // A month of 1 request: the second is the month's 429. A minute of 1: the second is the minute's.
    for (const [plan, scope] of [
      ['custom:100:1', 'month'],
      ['custom:1:1000', 'minute'],
    ] as const) {
      const { sim, client } = await start(plan);
      const control = new SimControlClient(sim);
      const asin = (await control.world()).books[0]?.asin ?? '';
      await control.close();
      await client.getBook(asin);
      const error = await rejection(() => client.getBook(asin));
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).scope).toBe(scope);
      expect((error as RateLimitedError).message).toContain(
        scope === 'month' ? 'quota_exceeded' : 'rate_limited',
      );
    }
  });

  it('a path that cannot be is a validate error', () => {
    const load = parseContract(
      { version: 1, errors: { monthWhen: { path: 'a.__proto__', equals: 'x' } } },
      'bad.yaml',
    );
    expect(load.ok).toBe(false);
  });
});
