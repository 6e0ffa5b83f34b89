/**
 * Redis bytes per book of the history store (`src/history`), side by side: the earlier layout (90
 * days of hourly points, nothing summarised) and the tiered one (a year: 30 hourly days, the rest as
 * daily min/median/max written by the same `compact` the poll worker runs). 100 tracked keywords and
 * BSR, written as polls write them (one `record` per judged day, then `compact`), measured with
 * MEMORY USAGE of every key of a book.
 */
import { BSR_SERIES, RedisHistoryStore } from '../../src/history/store.ts';
import { usage } from '../snapshot-bytes.ts';
import type { BenchContext } from './context.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface HistoryLayout {
  label: string;
  days: number;
  hourlyDays: number;
  /** MEMORY USAGE of every key of one book (day and month strings, the series hash), averaged over books. */
  perBook: number;
  keysPerBook: number;
  /** Wall time of writing and compacting one book's days. */
  writeMs: number;
}

export interface HistoryBytes {
  books: number;
  keywords: number;
  /** 4 bytes × 24 hours × 90 days × (keywords + BSR): the earlier layout's packed bound. */
  bound: number;
  hourly90: HistoryLayout;
  tieredYear: HistoryLayout;
}

async function measure(
  ctx: BenchContext,
  label: string,
  options: { days: number; hourlyDays: number; retentionDays: number; books: number; keywords: number },
): Promise<HistoryLayout> {
  const redis = ctx.redis();
  const prefix = ctx.prefix('history');
  const store = new RedisHistoryStore({
    redis,
    prefix,
    retentionMs: options.retentionDays * DAY,
    hourlyMs: options.hourlyDays * DAY,
  });
  const start = Date.parse('2025-08-01T00:00:00Z');
  const names = Array.from({ length: options.keywords }, (_, k) => `bench keyword number ${k}`);
  const began = performance.now();
  for (let b = 0; b < options.books; b++) {
    const book = { workspace: 'bench', asin: `B0HIST${String(b).padStart(4, '0')}`, marketplace: 'US' };
    for (let d = 0; d < options.days; d++) {
      const hours = Array.from({ length: 24 }, (_, h) => start + d * DAY + h * HOUR);
      const series = names.map((name, k) => ({
        series: name,
        points: hours.map((at, h) => ({
          at,
          rank: (k + h + d) % 7 === 0 ? null : 1 + ((k * 7 + h + d) % 180),
        })),
      }));
      series.push({ series: BSR_SERIES, points: hours.map((at, h) => ({ at, rank: 1_000 + h * 37 + d })) });
      const now = start + (d + 1) * DAY + HOUR;
      await store.record(book, series, now);
      await store.compact(book, now);
    }
  }
  const writeMs = (performance.now() - began) / options.books;
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
    label,
    days: options.days,
    hourlyDays: options.hourlyDays,
    perBook: total / options.books,
    keysPerBook: keys / options.books,
    writeMs,
  };
}

export async function historyBytesPerBook(ctx: BenchContext, keywords = 100): Promise<HistoryBytes> {
  const books = ctx.quick ? 2 : 5;
  const hourly90 = await measure(ctx, 'earlier layout: 90 days, all hourly', {
    days: 90,
    hourlyDays: 90,
    retentionDays: 90,
    books,
    keywords,
  });
  const tieredYear = await measure(ctx, 'tiered: a year, 30 days hourly then daily min/median/max', {
    days: 365,
    hourlyDays: 30,
    retentionDays: 730,
    books,
    keywords,
  });
  return { books, keywords, bound: 4 * 24 * 90 * (keywords + 1), hourly90, tieredYear };
}
