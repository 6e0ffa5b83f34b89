/**
 * Redis bytes per book of the history store (`src/history`) for a full retention of hourly points:
 * 100 tracked keywords and BSR over 90 days, written as polls write them (one `record` per judged
 * day), measured with MEMORY USAGE against the packed bound of 4 bytes a point.
 */
import { BSR_SERIES, RedisHistoryStore } from '../../src/history/store.ts';
import { usage } from '../snapshot-bytes.ts';
import type { BenchContext } from './context.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface HistoryBytes {
  books: number;
  keywords: number;
  days: number;
  /** MEMORY USAGE of every key of one book (day strings and the series hash), averaged over books. */
  perBook: number;
  /** 4 bytes × 24 hours × days × (keywords + BSR). */
  bound: number;
  keysPerBook: number;
}

export async function historyBytesPerBook(
  ctx: BenchContext,
  keywords = 100,
  days = 90,
): Promise<HistoryBytes> {
  const redis = ctx.redis();
  const prefix = ctx.prefix('history');
  const books = ctx.quick ? 2 : 5;
  const store = new RedisHistoryStore({ redis, prefix, retentionMs: days * DAY });
  const start = Date.parse('2026-08-01T00:00:00Z');
  const now = start + days * DAY;
  const names = Array.from({ length: keywords }, (_, k) => `bench keyword number ${k}`);
  for (let b = 0; b < books; b++) {
    const book = { workspace: 'bench', asin: `B0HIST${String(b).padStart(4, '0')}`, marketplace: 'US' };
    for (let d = 0; d < days; d++) {
      const hours = Array.from({ length: 24 }, (_, h) => start + d * DAY + h * HOUR);
      const series = names.map((name, k) => ({
        series: name,
        points: hours.map((at, h) => ({
          at,
          rank: (k + h + d) % 7 === 0 ? null : 1 + ((k * 7 + h + d) % 180),
        })),
      }));
      series.push({ series: BSR_SERIES, points: hours.map((at, h) => ({ at, rank: 1_000 + h * 37 + d })) });
      await store.record(book, series, now);
    }
  }
  let total = 0;
  let keys = 0;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:hist:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of found) {
      total += await usage(redis, key);
      keys += 1;
    }
  } while (cursor !== '0');
  return {
    books,
    keywords,
    days,
    perBook: total / books,
    bound: 4 * 24 * days * (keywords + 1),
    keysPerBook: keys / books,
  };
}
