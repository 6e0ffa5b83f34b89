/**
 * Every endpoint read through each dialect gives what the assumed contract gives: the simulator
 * writes its world through the dialect's contract file, the client reads it back through the same
 * file, and the result equals a simulator of the same seed and clock speaking the default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  collectAll,
  createAnalyticsClient,
  SchemaMismatchError,
} from '../../src/api/index.ts';
import { parsePlan, type RunningSimulator, SimControlClient, startSimulator } from '../../src/sim/index.ts';
import { rejection } from '../helpers/api-client.ts';
import { allDialects, type Dialect } from './helpers.ts';

const KEY = 'sk_dialect_test_0123456789';
const START = '2026-11-20T12:00:00Z';

async function serve(dialect: Dialect): Promise<{ sim: RunningSimulator; client: AnalyticsClient }> {
  const sim = await startSimulator({
    port: 0,
    seed: 5,
    books: 3,
    speed: 0,
    startAt: START,
    keys: [{ key: KEY, workspace: 'ws', plan: parsePlan('custom:100000:10000000') }],
    ...(dialect.sim === undefined ? {} : { dialect: dialect.sim }),
  });
  const client = createAnalyticsClient({
    baseUrl: sim.url,
    apiKey: KEY,
    transientRetryDelayMs: 0,
    contract: dialect.contract,
  });
  return { sim, client };
}

/** Everything the client reads, from one simulator. */
async function readAll(client: AnalyticsClient, asin: string, campaignId: string) {
  const book = (await client.getBook(asin)).data;
  const keywords = (await client.getBookKeywords(asin)).data;
  const reviews = await collectAll(client.listArcReviews({ campaignId, limit: 3 }));
  const sales = await collectAll(
    client.listSales({ marketplace: 'US', from: '2026-11-01', to: '2026-11-20', limit: 7 }),
  );
  const rankings = await collectAll(
    client.getRankings({ asin: [asin], keyword: [book.organic_keywords[0]?.keyword ?? 'x'], limit: 1 }),
  );
  const search = await collectAll(client.searchKeywords({ q: 'romance', limit: 10 }), { maxPages: 2 });
  const invites = (
    await client.inviteArcReaders(
      { campaign_id: campaignId, readers: [{ email: 'r@example.com', name: 'R' }] },
      { idempotencyKey: 'k-1' },
    )
  ).data;
  return {
    book,
    keywords,
    reviews: reviews.items,
    sales: sales.items,
    rankings: rankings.items,
    search: search.items,
    invites,
  };
}

const dialects = allDialects();
const served = new Map<string, { sim: RunningSimulator; client: AnalyticsClient }>();
let asin: string;
let campaignId: string;

beforeAll(async () => {
  for (const dialect of dialects) served.set(dialect.name, await serve(dialect));
  const first = served.get('default');
  if (first === undefined) throw new Error('no default simulator');
  const control = new SimControlClient(first.sim);
  const world = await control.world();
  await control.close();
  const campaign = world.campaigns[0];
  if (campaign === undefined) throw new Error('no campaign');
  campaignId = campaign.campaign_id;
  asin = campaign.asin;
});

afterAll(async () => {
  for (const { sim, client } of served.values()) {
    await client.close();
    await sim.close();
  }
});

describe.each(dialects.filter((d) => d.name !== 'default'))('$name', (dialect) => {
  it('reads every endpoint as the default contract reads it', async () => {
    const reference = await readAll(served.get('default')!.client, asin, campaignId);
    const read = await readAll(served.get(dialect.name)!.client, asin, campaignId);
    expect(reference.reviews.length).toBeGreaterThan(0);
    expect(reference.sales.length).toBeGreaterThan(7);
    // A sales day's final/provisional state is read only where the dialect states it (sales.final).
    const states = read.sales.map((row) => row.final);
    const readsFinal = dialect.contract.nodes.sales.fields.some((field) => field.name === 'final');
    expect(states.every((state) => (readsFinal ? typeof state === 'boolean' : state === undefined))).toBe(
      true,
    );
    const withoutState = { ...read, sales: read.sales.map(({ final: _final, ...row }) => row) };
    expect(withoutState).toEqual(reference);
  });

  // G's answers are the assumed contract's: it differs on the wire only (test/contract/dialect-wire.test.ts
  // shows what a contract without its habits gets wrong there).
  it.skipIf(dialect.name === 'dialect-g')(
    'is unreadable through the default contract: a schema mismatch naming a logical field',
    async () => {
      const sim = served.get(dialect.name)!.sim;
      const client = createAnalyticsClient({ baseUrl: sim.url, apiKey: KEY, transientRetryDelayMs: 0 });
      try {
        const error = await rejection(client.getBook(asin));
        expect(error).toBeInstanceOf(SchemaMismatchError);
        expect((error as SchemaMismatchError).issues[0]?.field).toMatch(/^book\./);
      } finally {
        await client.close();
      }
    },
  );
});
