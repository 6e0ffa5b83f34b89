/** Where /metrics reads its gauges: the budget, the queues and the channels, each behind a `Source`. */
import type { BudgetLimits, BudgetUsage } from '../budget/request-budget.ts';
import type { HistoryBook, RedisHistoryStore } from '../history/store.ts';
import type { BookObservation } from '../model/observation.ts';
import {
  type BookSample,
  type BudgetSample,
  type ChannelSample,
  QUEUE_STATES,
  type QueueSample,
  type QueueState,
  type Source,
} from '../ops/metrics.ts';
import { formatMinor } from '../util/money.ts';
import { DAY_MS } from '../util/time-units.ts';

/** Budget source: `usage()` of each workspace, with the limits its background polls use. */
export function budgetSource(
  budget: { usage(workspace: string, limits?: BudgetLimits): Promise<BudgetUsage> },
  workspaces: readonly { id: string; limits: BudgetLimits }[],
): Source<BudgetSample[]> {
  return () =>
    Promise.all(
      workspaces.map(async ({ id, limits }) => {
        const usage = await budget.usage(id, limits);
        return {
          workspace: id,
          minuteUsed: usage.minuteUsed,
          monthUsed: usage.monthUsed,
          ...(usage.monthRemaining === undefined ? {} : { monthRemaining: usage.monthRemaining }),
          paused: usage.pausedUntilMs !== null,
        };
      }),
    );
}

/** Queue source: BullMQ's `getJobCounts` of each named queue. */
export function queueSource(
  queues: Readonly<Record<string, { getJobCounts(...types: QueueState[]): Promise<Record<string, number>> }>>,
): Source<QueueSample[]> {
  return () =>
    Promise.all(
      Object.entries(queues).map(async ([queue, q]) => ({
        queue,
        counts: await q.getJobCounts(...QUEUE_STATES),
      })),
    );
}

/** Channel source: every configured channel, so a healthy one shows 0 rather than nothing. */
export function channelSource(
  channelIds: readonly string[],
  disabledReason: (channelId: string) => Promise<string | null>,
): Source<ChannelSample[]> {
  return () =>
    Promise.all(
      channelIds.map(async (channel) => ({ channel, disabled: (await disabledReason(channel)) !== null })),
    );
}

/**
 * Skips a Redis-backed source while the connection is down: its commands would queue until Redis
 * returns (maxRetriesPerRequest: null), one batch more at every scrape.
 */
export function whenReady<T>(isReady: () => boolean, source: Source<T>): Source<T> {
  return () => {
    if (!isReady()) throw new Error('not connected');
    return source();
  };
}

/**
 * Per-book source: each configured book's last book snapshot (BSR, reviews, rating) and its sales
 * day of yesterday (UTC) from the history store, royalties summed per currency. Books are read in
 * config order up to `maxBooks` (the series cap divided by the gauges a book has at least).
 */
export function bookSource(
  books: readonly HistoryBook[],
  snapshot: (book: HistoryBook) => Promise<BookObservation | undefined>,
  history: () => RedisHistoryStore | undefined,
  now: () => number,
  maxBooks: number,
): Source<BookSample[]> {
  return () => {
    const yesterday = new Date(now() - DAY_MS).toISOString().slice(0, 10);
    return Promise.all(
      books.slice(0, maxBooks).map(async (book) => {
        const [observed, days] = await Promise.all([
          snapshot(book),
          history()?.readSales(book, yesterday, yesterday) ?? Promise.resolve([]),
        ]);
        const byCurrency = new Map<string, number>();
        for (const day of days)
          byCurrency.set(
            day.royalties.currency,
            (byCurrency.get(day.royalties.currency) ?? 0) + day.royalties.minor,
          );
        return {
          ...book,
          bsr: observed?.bsr ?? null,
          reviewCount: observed?.reviewCount ?? null,
          rating: observed?.averageRating ?? null,
          royalties: [...byCurrency].map(([currency, minor]) => ({
            currency,
            amount: Number(formatMinor(minor, currency)),
          })),
        };
      }),
    );
  };
}
