/**
 * A dialect that states a sales day's final/provisional state (dialect C's `isFinal`) takes "today"
 * from the simulator's clock: a simulator started on another day than the machine's (or at another
 * speed) marks the days of its own last 14 provisional, as its figures are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnalyticsClient, collectAll, createAnalyticsClient } from '../../src/api/index.ts';
import { parsePlan, type RunningSimulator, startSimulator } from '../../src/sim/index.ts';
import { dialect } from './helpers.ts';

const KEY = 'sk_sim_provisional_0123456789';
const C = dialect('dialect-c');
let sim: RunningSimulator;
let client: AnalyticsClient;

beforeAll(async () => {
  // A year before the machine's clock (these sessions run in late 2026): Date.now() would call every day final.
  sim = await startSimulator({
    port: 0,
    seed: 5,
    books: 2,
    speed: 0,
    startAt: '2025-11-20T12:00:00Z',
    keys: [{ key: KEY, workspace: 'ws', plan: parsePlan('custom:100000:10000000') }],
    dialect: C.sim,
  });
  client = createAnalyticsClient({
    baseUrl: sim.url,
    apiKey: KEY,
    transientRetryDelayMs: 0,
    contract: C.contract,
  });
});
afterAll(async () => {
  await client?.close();
  await sim?.close();
});

describe('sim --contract: provisional sales days by the simulator clock', () => {
  it('marks the sim today and the 13 days before it provisional, the days before final', async () => {
    const rows = (
      await collectAll(
        client.listSales({ marketplace: 'US', from: '2025-10-30', to: '2025-11-20', limit: 50 }),
      )
    ).items;
    const byDate = new Map<string, boolean | undefined>();
    for (const row of rows) byDate.set(row.date, row.final);
    expect(byDate.size).toBe(22);
    const provisional = [...byDate].filter(([, final]) => final === false).map(([date]) => date);
    const final = [...byDate].filter(([, final]) => final === true).map(([date]) => date);
    expect(provisional.sort()).toEqual(
      Array.from({ length: 14 }, (_, i) => `2025-11-${String(7 + i).padStart(2, '0')}`),
    );
    expect(final.length).toBe(8);
    expect(final.every((date) => date <= '2025-11-06')).toBe(true);
  });
});
