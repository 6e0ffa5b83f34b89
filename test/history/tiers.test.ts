/** Tiered history: hourly days past the window become daily min/median/max, in real Redis. */
import { describe, expect, it } from 'vitest';
import { recordHistory } from '../../src/history/record.ts';
import { BSR_SERIES, compSeries, RedisHistoryStore } from '../../src/history/store.ts';
import type { BookObservation, SalesDay } from '../../src/model/observation.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DAY0 = Date.parse('2026-01-01T00:00:00Z');
const prefix = testPrefix('tiers');
const redis = testRedis(prefix);

const bookOf = (asin: string) => ({ workspace: 'ws', asin, marketplace: 'US' });
const dayHours = (day: number, rank: (h: number) => number | null) =>
  Array.from({ length: 24 }, (_, h) => ({ at: day + h * HOUR, rank: rank(h) }));

describe('tiered history', () => {
  it('summarises a day past the hourly window into min, median and max, then drops its hours', async () => {
    const book = bookOf('B0TIER0001');
    const store = new RedisHistoryStore({ redis, prefix, retentionMs: 365 * DAY, hourlyMs: 2 * DAY });
    // Unranked for two hours: the day's worst is "unranked", its best and median are ranks.
    await store.record(
      book,
      [
        { series: 'k', points: dayHours(DAY0, (h) => (h < 2 ? null : 10 + h)) },
        { series: BSR_SERIES, points: dayHours(DAY0, (h) => 5_000 - h) },
      ],
      DAY0 + DAY,
    );
    const later = DAY0 + 4 * DAY;
    expect(await store.compact(book, later)).toBe(1);
    expect(await redis.exists(`${prefix}:hist:ws:${book.asin}:US:20260101`)).toBe(0);
    const read = await store.readTiered(book, DAY0, later);
    expect(read.get('k')?.days).toEqual([{ day: DAY0, min: 12, median: 23, max: null }]);
    expect(read.get(BSR_SERIES)?.days).toEqual([{ day: DAY0, min: 4_977, median: 4_988, max: 5_000 }]);
    expect(read.get(BSR_SERIES)?.points).toEqual([{ at: DAY0 + 12 * HOUR, rank: 4_988 }]);
    // Done once: a second worker (and a lost per-process cache) finds the day summarised, unchanged.
    const again = new RedisHistoryStore({ redis, prefix, retentionMs: 365 * DAY, hourlyMs: 2 * DAY });
    expect(await again.compact(book, later)).toBe(0);
    expect((await again.readTiered(book, DAY0, later)).get('k')?.days).toEqual(read.get('k')?.days);
    // A poll that comes late cannot write into a summarised day.
    await store.record(book, [{ series: 'k', points: [{ at: DAY0 + 3 * HOUR, rank: 1 }] }], later);
    expect(await redis.exists(`${prefix}:hist:ws:${book.asin}:US:20260101`)).toBe(0);
  });

  it('keeps a day hourly inside the window and in the grace hour after it', async () => {
    const book = bookOf('B0TIER0002');
    const store = new RedisHistoryStore({ redis, prefix, hourlyMs: 2 * DAY });
    await store.record(book, [{ series: 'k', points: dayHours(DAY0, () => 3) }], DAY0 + DAY);
    expect(await store.compact(book, DAY0 + 3 * DAY + HOUR / 2)).toBe(0);
    const read = await store.readTiered(book, DAY0, DAY0 + 3 * DAY);
    expect(read.get('k')?.points).toHaveLength(24);
    expect(read.get('k')?.days).toEqual([]);
  });

  it('reads history stored hourly by an earlier version and summarises it over several polls', async () => {
    const book = bookOf('B0TIER0003');
    const now = DAY0 + 90 * DAY;
    const old = new RedisHistoryStore({ redis, prefix, retentionMs: 90 * DAY, hourlyMs: 90 * DAY });
    for (let d = 0; d < 89; d++)
      await old.record(book, [{ series: 'k', points: dayHours(DAY0 + d * DAY, (h) => d + h + 1) }], now);
    const tiered = new RedisHistoryStore({ redis, prefix, retentionMs: 365 * DAY, hourlyMs: 7 * DAY });
    const before = await tiered.read(book, DAY0, now);
    expect(before.get('k')).toHaveLength(89 * 24);
    let summarised = 0;
    let calls = 0;
    for (let s = -1; s !== 0; calls++) {
      s = await tiered.compact(book, now);
      summarised += s;
    }
    expect(calls).toBeGreaterThan(1);
    expect(summarised).toBe(89 - 7);
    const after = await tiered.readTiered(book, DAY0, now);
    const days = after.get('k')?.days ?? [];
    expect(days).toHaveLength(82);
    expect(days[40]).toEqual({ day: DAY0 + 40 * DAY, min: 41, median: 52, max: 64 });
    expect(after.get('k')?.points.filter((p) => p.at >= DAY0 + 82 * DAY)).toHaveLength(7 * 24);
  });

  it('records comps as series of the book and sales days per book and date', async () => {
    const book = bookOf('B0TIER0004');
    const store = new RedisHistoryStore({ redis, prefix });
    const observation: BookObservation = {
      kind: 'book',
      observedAt: DAY0 + 5 * HOUR,
      asin: book.asin,
      marketplace: 'US',
      title: 't',
      author: 'a',
      bsr: 900,
      bsrCategory: null,
      bsrHistory: [],
      reviewCount: 3,
      averageRating: 4,
      compTitles: [{ asin: 'B0COMP0001', title: '<b>x</b>', bsr: 1_200 }],
    };
    await recordHistory(store, 'ws', [observation], DAY0 + 6 * HOUR);
    const read = await store.read(book, DAY0, DAY0 + DAY);
    expect(read.get(compSeries('B0COMP0001'))).toEqual([{ at: DAY0 + 5 * HOUR, rank: 1_200 }]);
    const day = (date: string, units: number): SalesDay => ({
      asin: book.asin,
      marketplace: 'US',
      date,
      units,
      royalties: { minor: units * 250, currency: 'USD' },
      adSpend: { minor: 99, currency: 'USD' },
    });
    const sales = { kind: 'sales' as const, observedAt: DAY0, marketplace: null };
    await recordHistory(
      store,
      'ws',
      [{ ...sales, days: [day('2025-12-31', 2), day('2026-01-01', 1)] }],
      DAY0,
    );
    // A revised provisional day replaces the earlier figures.
    await recordHistory(store, 'ws', [{ ...sales, days: [day('2026-01-01', 4)] }], DAY0);
    expect(await store.readSales(book, '2025-12-01', '2026-01-31')).toEqual([
      day('2025-12-31', 2),
      day('2026-01-01', 4),
    ]);
  });
});
