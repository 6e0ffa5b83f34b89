/**
 * Dialect F served by the simulator (`sim --contract dialect-f.yaml`): Keepa's sales money (integer
 * cents of the marketplace's currency, no currency member) and SP-API's per-second rate limit read
 * back give what the assumed contract gives, in every marketplace's currency; and a sales answer
 * that says "no figure" (-1) for every row, polled on real Redis, erases nothing and invents nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  collectAll,
  createAnalyticsClient,
  MARKETPLACES,
  type RateLimitInfo,
  type SalesRecord,
} from '../../src/api/index.ts';
import type { SalesDay, SalesObservation } from '../../src/model/observation.ts';
import { parsePlan, type RunningSimulator, startSimulator } from '../../src/sim/index.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { CapturingSink, createHarness, type Harness, parseOrThrow } from '../poll/engine-harness.ts';
import { DEFAULT_DIALECT, type Dialect, dialect } from './helpers.ts';

const KEY = 'sk_dialect_money_0123456789';

interface Served {
  sim: RunningSimulator;
  client: AnalyticsClient;
  limits: RateLimitInfo[];
}

async function serve(d: Dialect): Promise<Served> {
  const sim = await startSimulator({
    port: 0,
    seed: 7,
    books: 6,
    speed: 0,
    startAt: '2026-11-20T12:00:00Z',
    keys: [{ key: KEY, workspace: 'ws', plan: parsePlan('custom:90:10000000') }],
    ...(d.sim === undefined ? {} : { dialect: d.sim }),
  });
  const limits: RateLimitInfo[] = [];
  const client = createAnalyticsClient({
    baseUrl: sim.url,
    apiKey: KEY,
    transientRetryDelayMs: 0,
    contract: d.contract,
    onResponse: (res) => limits.push(res.rateLimit),
  });
  return { sim, client, limits };
}

const served: Served[] = [];
beforeAll(async () => {
  served.push(await serve(DEFAULT_DIALECT), await serve(dialect('dialect-f')));
});
afterAll(async () => {
  for (const s of served) {
    await s.client.close();
    await s.sim.close();
  }
});

/** The sales of every marketplace (the simulator answers one marketplace a request, US by default). */
async function sales(client: AnalyticsClient) {
  const rows: SalesRecord[] = [];
  for (const marketplace of MARKETPLACES) {
    const got = await collectAll(
      client.listSales({ marketplace, from: '2026-11-01', to: '2026-11-20', limit: 100 }),
    );
    rows.push(...got.items);
  }
  return rows;
}

describe('dialect F (Keepa money, SP-API rate limit) through the simulator', () => {
  it('sales in every marketplace read as the default reads them', async () => {
    const [plain, keepa] = served as [Served, Served];
    const expected = await sales(plain.client);
    expect(expected.length).toBeGreaterThan(0);
    expect(await sales(keepa.client)).toEqual(expected);
    // Not only dollars: the minor units follow each marketplace's currency.
    expect(new Set(expected.map((r) => r.royalties?.currency)).size).toBeGreaterThan(1);
  });

  it('the per-second limit is read as the minute the default states', async () => {
    const [plain, keepa] = served as [Served, Served];
    expect(plain.limits.at(-1)?.limit).toBe(90);
    // 90 a minute is served as "1.5" a second and read back as 90.
    expect(keepa.limits.at(-1)?.limit).toBe(90);
    expect(keepa.limits.at(-1)?.remaining).toBeUndefined();
  });
});

describe('a sales answer with no figure in any row, polled through dialect F on real Redis', () => {
  const KEY = 'sk_no_figure_0123456789';
  const prefix = testPrefix('no-figure');
  const redis = testRedis(prefix);
  const fx = useSimulator({
    seed: 7,
    books: 2,
    dialect: dialect('dialect-f').sim,
    key: KEY,
    workspace: 'ws',
    plan: 'custom:100000:10000000',
  });
  let harness: Harness;
  const sink = new CapturingSink();
  const TARGET = 'sales/US';

  beforeAll(async () => {
    const config = parseOrThrow({
      redis: { prefix },
      workspaces: [
        {
          id: 'ws',
          baseUrl: fx.url,
          apiKey: KEY,
          plan: 'custom:100000:10000000',
          api: { contract: dialect('dialect-f').file },
          books: [{ asin: fx.book(0).asin, marketplaces: ['US'] }],
          sales: { marketplaces: ['US'] },
        },
      ],
      rules: [
        { id: 'royalty', kind: 'royalty_change', minAbsolute: 1, percent: 50, direction: 'down' },
        { id: 'revision', kind: 'sales_revision' },
      ],
    });
    harness = createHarness({ sim: fx.sim, redis, prefix, config, sink });
  });
  afterAll(async () => {
    await harness?.close();
  });

  async function storedDays(): Promise<SalesDay[]> {
    const value = await harness.store.get({ workspace: 'ws', kind: 'sales', id: TARGET });
    if (value === undefined) throw new Error('no sales snapshot');
    return (value.observation as SalesObservation).days;
  }
  const keyOf = (d: SalesDay) => `${d.asin}|${d.marketplace}|${d.date}|${d.royalties.currency}`;

  it('keeps the known days, alerts nothing, and judges the returning figures against them', async () => {
    expect(await harness.poll(TARGET)).toMatchObject({ status: 'ok', baseline: true, alerts: 0 });
    const known = await storedDays();
    expect(known.length).toBeGreaterThan(10);
    const latest = known
      .map((d) => d.date)
      .sort()
      .at(-1);

    // Every row -1: the poll is no change, and the stored figures stay as they were.
    await fx.control.fault({ kind: 'no_figure', pathPrefix: '/v1/sales' });
    expect(await harness.poll(TARGET)).toMatchObject({ status: 'ok', alerts: 0 });
    expect(await storedDays()).toEqual(known);

    // A new day appears, a collapse, still without figures: no baseline is made of nothing.
    await fx.control.advance(86_400_000);
    const next = new Date(fx.sim.clock.now()).toISOString().slice(0, 10);
    const asin = fx.book(0).asin;
    await fx.control.event({
      type: 'sales_revision',
      asin,
      marketplace: 'US',
      date: next,
      royalties: '0.01',
    });
    await fx.control.fault({ kind: 'no_figure', pathPrefix: '/v1/sales' });
    expect(await harness.poll(TARGET)).toMatchObject({ status: 'ok', alerts: 0 });
    const kept = await storedDays();
    const knownByKey = new Map(known.map((d) => [keyOf(d), d]));
    // Only the day that left the 15-day window is gone; every other is the known one, unchanged.
    expect(kept.length).toBeGreaterThan(known.length - 3);
    for (const day of kept) expect(day).toEqual(knownByKey.get(keyOf(day)));
    expect(sink.alerts).toEqual([]);

    // The figures return: the new day is judged against the last known ones, and its drop alerts.
    await harness.poll(TARGET);
    const drops = sink.ofKind('royalty_change');
    expect(drops.map((a) => [a.subject.asin, a.subject.date])).toEqual([[asin, next]]);
    // No known day is taken for a new one (judged again) because it was missing for a while.
    expect(drops.every((a) => String(a.subject.date) > String(latest))).toBe(true);
    await harness.poll(TARGET);
    expect(sink.ofKind('royalty_change')).toHaveLength(1);
  });
});
