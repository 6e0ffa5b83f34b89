import type { TargetKind, TargetRef } from '../model/observation.ts';

const HOUR = 3_600_000;

/**
 * The fastest cadence worth polling per kind. BSR and keyword ranks are hourly data; ARC reviews
 * are wanted promptly by launch teams; sales are daily figures that are revised for 14 days.
 */
export const USEFUL_CADENCE_MS: Readonly<Record<TargetKind, number>> = {
  book: HOUR,
  keywords: HOUR,
  reviews: 15 * 60_000,
  sales: 6 * HOUR,
};

/** The slowest cadence still useful (old trackers slowed quiet books to 24 h). */
export const MAX_CADENCE_MS: Readonly<Record<TargetKind, number>> = {
  book: 24 * HOUR,
  keywords: 24 * HOUR,
  reviews: 12 * HOUR,
  sales: 24 * HOUR,
};

interface TargetBase {
  ref: TargetRef;
  /** A cadence set in the config, honoured as given (tests and demos go down to seconds). */
  overrideCadenceMs?: number;
}

export type WatchTarget =
  | (TargetBase & { kind: 'book'; asin: string; marketplace: string; author?: string })
  | (TargetBase & {
      kind: 'keywords';
      asin: string;
      marketplace: string;
      keywords: { list: string[] } | { top: number };
      /** series: judged hour by hour from /v1/rankings (rankings.ts); snapshot (or absent): /v1/books/{asin}/keywords. */
      source?: 'series' | 'snapshot';
      author?: string;
    })
  | (TargetBase & { kind: 'reviews'; campaignId: string })
  | (TargetBase & { kind: 'sales'; marketplace: string | null });

export function bookTargetId(asin: string, marketplace: string): string {
  return `book/${asin}/${marketplace}`;
}

export function keywordsTargetId(asin: string, marketplace: string): string {
  return `keywords/${asin}/${marketplace}`;
}

export function reviewsTargetId(campaignId: string): string {
  return `reviews/${campaignId}`;
}

export function salesTargetId(marketplace: string | null): string {
  return `sales/${marketplace ?? 'all'}`;
}

/** First guess of requests per poll before the planner has learned the real number. */
export function estimatedCostPerPoll(target: WatchTarget): number {
  switch (target.kind) {
    case 'book':
    case 'keywords':
      return 1;
    case 'reviews':
      return 2;
    case 'sales':
      return 3;
  }
}
