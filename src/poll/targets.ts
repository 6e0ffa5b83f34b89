import type { TargetKind, TargetRef } from '../model/observation.ts';
import { HOUR_MS, MINUTE_MS } from '../util/time-units.ts';

/**
 * The fastest cadence worth polling per kind. BSR and keyword ranks are hourly data; ARC reviews
 * are wanted promptly by launch teams; sales are daily figures that are revised for 14 days.
 */
export const USEFUL_CADENCE_MS: Readonly<Record<TargetKind, number>> = {
  book: HOUR_MS,
  keywords: HOUR_MS,
  reviews: 15 * MINUTE_MS,
  sales: 6 * HOUR_MS,
};

/** The slowest cadence still useful (old trackers slowed quiet books to 24 h). */
export const MAX_CADENCE_MS: Readonly<Record<TargetKind, number>> = {
  book: 24 * HOUR_MS,
  keywords: 24 * HOUR_MS,
  reviews: 12 * HOUR_MS,
  sales: 24 * HOUR_MS,
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
  | (TargetBase & { kind: 'reviews'; campaignId: string; campaignName?: string })
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
