/**
 * Dialect G served by the simulator (`sim --contract dialect-g.yaml`): a page token that must come
 * without the other filters (`cursor.alone`), ASINs and keywords that an API reads only the first of
 * when they come repeated (no 400), and the month's 429 told by a header. Read through its own file,
 * every page and every value arrives as the assumed contract gives them; read as if it were not so,
 * the simulator answers as such an API does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeContract } from '../../src/api/contract/merge.ts';
import type { ContractFile } from '../../src/api/contract/schema.ts';
import {
  type AnalyticsClient,
  type CompiledContract,
  collectAll,
  createAnalyticsClient,
  parseContract,
  RateLimitedError,
} from '../../src/api/index.ts';
import { parsePlan, type RunningSimulator, SimControlClient, startSimulator } from '../../src/sim/index.ts';
import { DEFAULT_DIALECT, type Dialect, dialect } from './helpers.ts';

const KEY = 'sk_dialect_wire_0123456789';
const G = dialect('dialect-g');
const closers: (() => Promise<unknown>)[] = [];

async function serve(d: Dialect, plan = 'custom:100000:10000000'): Promise<RunningSimulator> {
  const sim = await startSimulator({
    port: 0,
    seed: 11,
    books: 3,
    speed: 0,
    startAt: '2026-11-20T12:00:00Z',
    keys: [{ key: KEY, workspace: 'ws', plan: parsePlan(plan) }],
    ...(d.sim === undefined ? {} : { dialect: d.sim }),
  });
  closers.push(() => sim.close());
  return sim;
}

function clientOf(sim: RunningSimulator, contract: CompiledContract): AnalyticsClient {
  const client = createAnalyticsClient({ baseUrl: sim.url, apiKey: KEY, transientRetryDelayMs: 0, contract });
  closers.push(() => client.close());
  return client;
}

async function raw(
  sim: RunningSimulator,
  path: string,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** G's file with one change, as a user who had not found that habit would have it. */
function without(change: ContractFile): CompiledContract {
  const load = parseContract(mergeContract(G.contract.source, change), 'g-edited.yaml');
  if (!load.ok) throw new Error(JSON.stringify(load.problems));
  return load.contract;
}

let plain: RunningSimulator;
let wire: RunningSimulator;
let asins: string[];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});
beforeAll(async () => {
  plain = await serve(DEFAULT_DIALECT);
  wire = await serve(G);
  const control = new SimControlClient(wire);
  asins = (await control.world()).books.map((b) => b.asin);
  await control.close();
});

describe('dialect G: a page token sent alone', () => {
  const search = (client: AnalyticsClient) =>
    collectAll(client.searchKeywords({ q: 'romance', limit: 5 }), { maxPages: 3 });

  it('reads every page as the assumed contract does, the token sent without the filters', async () => {
    const truth = await search(clientOf(plain, DEFAULT_DIALECT.contract));
    const read = await search(clientOf(wire, G.contract));
    expect(read.pages).toBe(3);
    expect(read.items).toEqual(truth.items);
  });

  it('answers 400 naming the filters sent with the token', async () => {
    const first = await raw(wire, '/v1/keywords/search?q=romance&limit=5');
    const token = (first.body as { pagination: { nextToken: string } }).pagination.nextToken;
    expect(typeof token).toBe('string');
    const both = await raw(wire, `/v1/keywords/search?q=romance&limit=5&nextToken=${token}`);
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toContain('leave out q');
    const alone = await raw(wire, `/v1/keywords/search?limit=5&nextToken=${token}`);
    expect(alone.status).toBe(200);
    // A contract without `alone` sends the filters with the token, and the walk fails on page 2.
    const naive = clientOf(
      wire,
      without({ pagination: { cursor: { param: 'nextToken', next: 'pagination.nextToken' } } }),
    );
    await expect(search(naive)).rejects.toThrow(/400/);
  });
});

describe('dialect G: repeated values read only for the first', () => {
  it('answers a repeated ASIN for the first only (200, no 400), and comma-joined for each', async () => {
    const [a, b] = asins as [string, string];
    const asinsIn = (body: unknown) =>
      [...new Set((body as { data: { asin: string }[] }).data.map((i) => i.asin))].sort();
    const repeated = await raw(wire, `/v1/rankings?asin=${a}&asin=${b}`);
    expect(repeated.status).toBe(200);
    expect(asinsIn(repeated.body)).toEqual([a]);
    const joined = await raw(wire, `/v1/rankings?asin=${a},${b}`);
    expect(asinsIn(joined.body)).toEqual([a, b].sort());
  });

  it('reads both books through its own file, and one through a file that repeats them', async () => {
    const both = { asin: asins.slice(0, 2) };
    const truth = await collectAll(clientOf(plain, DEFAULT_DIALECT.contract).getRankings(both));
    const read = await collectAll(clientOf(wire, G.contract).getRankings(both));
    expect(read.items).toEqual(truth.items);
    const repeat = without({ params: { asin: 'asin' } });
    // The client's own off-topic check cannot see a book that is missing: only the count shows it.
    const partial = await collectAll(clientOf(wire, repeat).getRankings(both));
    expect(new Set(partial.items.map((i) => i.asin))).toEqual(new Set([asins[0]]));
  });
});

describe("dialect G: the month's 429 told by a header", () => {
  it('pauses for the month on the header, with the minute code in the body', async () => {
    const sim = await serve(G, 'custom:100:1');
    const client = clientOf(sim, G.contract);
    await client.getBook(asins[0] ?? '');
    const answer = await raw(sim, `/v1/books/${asins[0]}`);
    expect(answer.status).toBe(429);
    expect(answer.headers.get('x-ratelimit-scope')).toBe('month');
    expect(JSON.stringify(answer.body)).toContain('TOO_MANY_REQUESTS');
    const error = await client.getBook(asins[0] ?? '').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).scope).toBe('month');
  });
});
