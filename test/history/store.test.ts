/** The history store: 4-byte hourly points per series and day, in real Redis, with a TTL of the retention. */
import { describe, expect, it } from 'vitest';
import { historyPointsOf } from '../../src/history/record.ts';
import { BSR_SERIES, RedisHistoryStore } from '../../src/history/store.ts';
import type { KeywordsObservation } from '../../src/model/observation.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DAY0 = Date.parse('2026-11-02T00:00:00Z');
const prefix = testPrefix('history');
const redis = testRedis(prefix);
const book = { workspace: 'ws', asin: 'B0CJ4XQ2ZK', marketplace: 'US' };

function hourly(keyword: string, ranks: (number | null)[], start: number): KeywordsObservation[] {
  return ranks.map((rank, i) => ({
    kind: 'keywords',
    observedAt: start + i * HOUR,
    asin: book.asin,
    marketplace: 'US',
    ranks: [{ keyword, rank }],
  }));
}

describe('RedisHistoryStore', () => {
  it('keeps ranks, unranked hours and BSR across days, and reads them back in order', async () => {
    const store = new RedisHistoryStore({ redis, prefix, retentionMs: 90 * DAY });
    const now = DAY0 + 2 * DAY;
    const hours = hourly('cozy mystery', [4, null, 7], DAY0 + 23 * HOUR);
    await store.record(book, historyPointsOf(hours), now);
    await store.record(book, [{ series: BSR_SERIES, points: [{ at: DAY0 + HOUR, rank: 1834 }] }], now);
    // A re-judged hour writes the same bytes.
    await store.record(book, historyPointsOf(hours.slice(0, 1)), now);
    const read = await store.read(book, DAY0, now);
    expect(read.get('cozy mystery')).toEqual([
      { at: DAY0 + 23 * HOUR, rank: 4 },
      { at: DAY0 + 24 * HOUR, rank: null },
      { at: DAY0 + 25 * HOUR, rank: 7 },
    ]);
    expect(read.get(BSR_SERIES)).toEqual([{ at: DAY0 + HOUR, rank: 1834 }]);
  });

  it('expires each day a retention after it ends and skips points already past it', async () => {
    const other = { ...book, asin: 'B0000000TT' };
    const store = new RedisHistoryStore({ redis, prefix, retentionMs: 3 * DAY });
    const now = DAY0 + 5 * DAY + HOUR;
    await store.record(other, historyPointsOf(hourly('k', [1], DAY0 + 5 * DAY)), now);
    await store.record(other, historyPointsOf(hourly('k', [2], DAY0)), now);
    const ttl = await redis.pttl(`${prefix}:hist:ws:${other.asin}:US:20261107`);
    expect(ttl).toBeGreaterThan(3 * DAY);
    expect(ttl).toBeLessThanOrEqual(4 * DAY);
    expect(await redis.exists(`${prefix}:hist:ws:${other.asin}:US:20261102`)).toBe(0);
    expect((await store.read(other, DAY0, now)).get('k')).toEqual([{ at: DAY0 + 5 * DAY, rank: 1 }]);
  });

  it('takes 4 bytes a point: a day of 100 keywords and BSR is 101 × 96 bytes', async () => {
    const other = { ...book, asin: 'B0000000BY' };
    const store = new RedisHistoryStore({ redis, prefix });
    const series = Array.from({ length: 100 }, (_, k) => ({
      series: `keyword ${k}`,
      points: Array.from({ length: 24 }, (_, h) => ({ at: DAY0 + h * HOUR, rank: k + h + 1 })),
    }));
    series.push({ series: BSR_SERIES, points: [{ at: DAY0 + 23 * HOUR, rank: 900 }] });
    await store.record(other, series, DAY0 + DAY);
    expect(await redis.strlen(`${prefix}:hist:ws:${other.asin}:US:20261102`)).toBe(101 * 96);
  });
});
