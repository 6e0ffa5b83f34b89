/**
 * errors.monthWhen: a dialect that sends the month's 429 and the minute's under one error code tells
 * them apart by a field of its body or by a header; the client reads the month's as a month pause
 * (scope month, waiting for the reset even when Retry-After says a minute), the minute's as a minute
 * wait. Served by the simulator in that dialect (`sim --contract`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ContractFile,
  createAnalyticsClient,
  parseContract,
  RateLimitedError,
} from '../../src/api/index.ts';
import { rateLimitPauseMs } from '../../src/budget/api-outcome-policy.ts';
import { parsePlan, SimControlClient, startSimulator } from '../../src/sim/index.ts';
import { createSimDialect } from '../../src/tools/probe/index.ts';
import { startHttpReceiver } from '../../src/tools/receivers/http.ts';

const byBody: ContractFile = {
  version: 1,
  endpoints: { error: { root: '', fields: { code: 'type', message: 'detail' } } },
  errors: {
    codes: { TOO_MANY_REQUESTS: 'rate_limited' },
    monthWhen: { path: 'limitScope', equals: 'MONTHLY' },
  },
};
const byHeader: ContractFile = {
  version: 1,
  endpoints: { error: { root: '', fields: { code: 'type', message: 'detail' } } },
  errors: {
    codes: { TOO_MANY_REQUESTS: 'rate_limited' },
    monthWhen: { header: 'X-RateLimit-Scope', equals: 'month' },
  },
};
const KEY = 'sk_month_429_0123456789';

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

function compiled(file: ContractFile) {
  const load = parseContract(file, 'dialect.yaml');
  if (!load.ok) throw new Error(JSON.stringify(load.problems));
  return load.contract;
}

async function serve(file: ContractFile, plan: string) {
  const contract = compiled(file);
  const sim = await startSimulator({
    port: 0,
    seed: 3,
    books: 1,
    speed: 0,
    keys: [{ key: KEY, workspace: 'ws', plan: parsePlan(plan) }],
    dialect: createSimDialect(contract),
  });
  const client = createAnalyticsClient({
    baseUrl: sim.url,
    apiKey: KEY,
    transientRetryDelayMs: 0,
    contract,
  });
  closers.push(
    () => sim.close(),
    () => client.close(),
  );
  const control = new SimControlClient(sim);
  const asin = (await control.world()).books[0]?.asin ?? '';
  await control.close();
  return { sim, client, asin };
}

/** A client of `file` against a local receiver whose answers the test scripts. */
async function scripted(file: ContractFile) {
  const api = await startHttpReceiver();
  closers.push(() => api.close());
  const client = createAnalyticsClient({
    baseUrl: api.url,
    apiKey: KEY,
    transientRetryDelayMs: 0,
    contract: compiled(file),
  });
  closers.push(() => client.close());
  return { api, client };
}

/** The month's start after now (UTC): where a month's 429 waits until. */
function untilNextMonth(now = Date.now()): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - now;
}

describe('errors.monthWhen', () => {
  it.each([
    ['a body field', byBody],
    ['a header', byHeader],
  ] as const)("tells the month's 429 from the minute's by %s, both under one code", async (_what, file) => {
    // A month of 1 request: the second is the month's 429. A minute of 1: the second is the minute's.
    for (const [plan, scope] of [
      ['custom:100:1', 'month'],
      ['custom:1:1000', 'minute'],
    ] as const) {
      const { sim, client, asin } = await serve(file, plan);
      await client.getBook(asin);
      // On the wire both 429s carry the minute's code: only the body field or the header tells them apart.
      const raw = await fetch(`${sim.url}/v1/books/${asin}`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(raw.status).toBe(429);
      expect(((await raw.json()) as { type?: string }).type).toBe('TOO_MANY_REQUESTS');
      expect(raw.headers.get('x-ratelimit-scope')).toBe(
        file === byHeader && scope === 'month' ? 'month' : null,
      );
      const error = await rejection(() => client.getBook(asin));
      expect(error).toBeInstanceOf(RateLimitedError);
      const limited = error as RateLimitedError;
      expect(limited.scope).toBe(scope);
      expect(limited.message).toContain(scope === 'month' ? 'quota_exceeded' : 'rate_limited');
      // The month's 429 pauses the workspace until the month resets; the minute's for the minute.
      const pause = rateLimitPauseMs(limited, Date.now());
      if (scope === 'month') expect(pause).toBeGreaterThan(untilNextMonth() - 5 * 60_000);
      else expect(pause).toBeLessThanOrEqual(60_000);
    }
  });

  it("waits for the month's reset when its 429 says Retry-After of a minute, and takes the minute's as said", async () => {
    const { api, client } = await scripted(byHeader);
    const body = JSON.stringify({ type: 'TOO_MANY_REQUESTS', detail: 'slow down' });
    const json = { 'content-type': 'application/json', 'retry-after': '30' };
    api.respondWith(429, body, { ...json, 'x-ratelimit-scope': 'month' }, 1);
    const month = (await rejection(() => client.getBook('B000000001'))) as RateLimitedError;
    expect(month.scope).toBe('month');
    expect(month.retryAfterMs).toBeGreaterThan(untilNextMonth() - 5 * 60_000);
    api.respondWith(429, body, { ...json, 'x-ratelimit-scope': 'minute' }, 1);
    const minute = (await rejection(() => client.getBook('B000000001'))) as RateLimitedError;
    expect(minute.scope).toBe('minute');
    expect(minute.retryAfterMs).toBe(30_000);
    // Each 429 was one request: none was retried.
    expect(api.requests).toHaveLength(2);
  });

  it("waits for the next UTC month when the month's 429 states a reset that has passed, never 'now'", async () => {
    const { api, client } = await scripted({
      ...byHeader,
      rateLimit: { quotaReset: { body: 'quotaResetsAt', format: 'epoch_s' } },
    });
    // A stale reset (an hour ago): waiting "until" it would be 0 ms, asked again at once and refused again.
    const stale = Math.floor(Date.now() / 1000) - 3_600;
    const body = JSON.stringify({ type: 'TOO_MANY_REQUESTS', detail: 'quota spent', quotaResetsAt: stale });
    api.respondWith(429, body, { 'content-type': 'application/json', 'x-ratelimit-scope': 'month' }, 1);
    const month = (await rejection(() => client.getBook('B000000001'))) as RateLimitedError;
    expect(month.scope).toBe('month');
    expect(month.rateLimit?.quotaResetAt).toBe(stale * 1000);
    expect(month.retryAfterMs).toBeGreaterThan(untilNextMonth() - 5 * 60_000);
    expect(api.requests).toHaveLength(1);
  });

  it('a header that is 0 on the 429 (a quota-remaining header) tells it too', () => {
    const contract = compiled({
      version: 1,
      errors: { monthWhen: { header: 'X-Quota-Remaining', equals: 0 } },
    });
    expect(contract.monthly({ 'x-quota-remaining': '0' }, undefined)).toBe(true);
    expect(contract.monthly({ 'x-quota-remaining': '12' }, undefined)).toBe(false);
    expect(contract.monthly({}, { 'x-quota-remaining': 0 })).toBe(false);
  });

  it('a path that cannot be, both a path and a header, or neither, is a validate error with its fix', () => {
    const problems = (monthWhen: unknown) => {
      const load = parseContract({ version: 1, errors: { monthWhen } } as ContractFile, 'bad.yaml');
      return load.ok ? [] : load.problems;
    };
    expect(problems({ path: 'a.__proto__', equals: 'x' })).not.toEqual([]);
    expect(problems({ path: 'limitScope', header: 'X-RateLimit-Scope', equals: 'month' })).toEqual([
      expect.objectContaining({
        path: 'errors.monthWhen',
        message: expect.stringContaining('a path and a header at once'),
        hint: expect.stringContaining('keep path'),
      }),
    ]);
    expect(problems({ equals: 'month' })).toEqual([
      expect.objectContaining({ path: 'errors.monthWhen', message: expect.stringContaining('no path') }),
    ]);
  });
});
