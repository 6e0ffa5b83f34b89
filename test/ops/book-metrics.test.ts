/** Per-book gauges (server.bookMetrics): off without a source, capped in whole books, royalties per currency. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bookSource } from '../../src/app/metric-sources.ts';
import { RedisHistoryStore } from '../../src/history/store.ts';
import { type BookSample, Metrics } from '../../src/ops/metrics.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { family } from './exposition.ts';

const prefix = testPrefix('book-metrics');
const redis = testRedis(prefix);
const sample = (asin: string, royalties: BookSample['royalties'] = []): BookSample => ({
  workspace: 'ws',
  asin,
  marketplace: 'US',
  bsr: 1_234,
  reviewCount: 56,
  rating: 4.5,
  royalties,
});

describe('per-book gauges', () => {
  it('exports nothing per book without the source (the default)', async () => {
    const text = await new Metrics({ defaultMetrics: false }).text();
    for (const name of ['bsr', 'reviews', 'rating', 'royalties_yesterday', 'series_dropped'])
      expect(family(text, `shelfwatch_book_${name}`), name).toEqual([]);
  });

  it('exports BSR, reviews, rating and royalties per currency, whole books up to the cap', async () => {
    const rows = [
      sample('B0AAAAAAA1', [{ currency: 'USD', amount: 10.5 }]),
      sample('B0AAAAAAA2'),
      sample('B0AAAAAAA3'),
    ];
    const metrics = new Metrics({ defaultMetrics: false, maxBookSeries: 6, sources: { books: () => rows } });
    const text = await metrics.text();
    expect(family(text, 'shelfwatch_book_bsr').map((s) => s.labels.asin)).toEqual(['B0AAAAAAA1']);
    expect(family(text, 'shelfwatch_book_royalties_yesterday')).toEqual([
      { labels: { workspace: 'ws', asin: 'B0AAAAAAA1', marketplace: 'US', currency: 'USD' }, value: 10.5 },
    ]);
    // 4 series, then the next book's 3 would pass the cap of 6: left out whole, and the third, counted.
    expect(family(text, 'shelfwatch_book_series_dropped')).toEqual([{ labels: {}, value: 6 }]);
  });

  it("reads yesterday's royalties from the kept sales days, summed per currency", async () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    const store = new RedisHistoryStore({ redis, prefix });
    const day = (marketplace: string, minor: number, currency: string) => ({
      asin: 'B0AAAAAAA1',
      marketplace,
      date: '2026-11-27',
      units: 1,
      royalties: { minor, currency },
      adSpend: { minor: 0, currency },
    });
    await store.recordSales('ws', [day('US', 1_050, 'USD'), day('DE', 700, 'EUR')], now);
    const source = bookSource(
      [{ workspace: 'ws', asin: 'B0AAAAAAA1', marketplace: 'US' }],
      async () => undefined,
      () => store,
      () => now,
      10,
    );
    expect(await source()).toEqual([
      {
        workspace: 'ws',
        asin: 'B0AAAAAAA1',
        marketplace: 'US',
        bsr: null,
        reviewCount: null,
        rating: null,
        royalties: [{ currency: 'USD', amount: 10.5 }],
      },
    ]);
  });
});

describe('the sample Grafana dashboard', () => {
  it('queries only per-book metrics shelfwatch exports', async () => {
    const dashboard = readFileSync(
      resolve(dirname(fileURLToPath(import.meta.url)), '../../examples/grafana-books.json'),
      'utf8',
    );
    const used = new Set(dashboard.match(/shelfwatch_[a-z_]+/g));
    expect(used.size).toBeGreaterThan(3);
    const text = await new Metrics({
      defaultMetrics: false,
      sources: { books: () => [sample('B0AAAAAAA1')] },
    }).text();
    for (const name of used) expect(text, name).toContain(`# TYPE ${name} gauge`);
  });
});
