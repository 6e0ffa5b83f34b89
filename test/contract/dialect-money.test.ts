/**
 * Dialect F served by the simulator (`sim --contract dialect-f.yaml`): Keepa's sales money (integer
 * cents of the marketplace's currency, no currency member) and SP-API's per-second rate limit read
 * back give what the assumed contract gives, in every marketplace's currency.
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
import { parsePlan, type RunningSimulator, startSimulator } from '../../src/sim/index.ts';
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
