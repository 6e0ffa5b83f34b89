/**
 * What one ok poll of a target saw, normalised from the API's answer. Diffs and rules work on
 * these (pure: observations in, alerts out); the snapshot store keeps the last one per target.
 * Times are ms since epoch; money is integer minor units with its currency, never a float.
 */

export type TargetKind = 'book' | 'keywords' | 'reviews' | 'sales';

/** One watched thing of a workspace, polled on its own cadence. */
export interface TargetRef {
  workspace: string;
  kind: TargetKind;
  /** Stable id inside the workspace, e.g. `book/B0CJ4XQ2ZK/US`, `reviews/camp-1`, `sales/US` (no ":", BullMQ ids forbid it). */
  id: string;
}

export interface RankPoint {
  at: number;
  rank: number | null;
}

export interface BookObservation {
  kind: 'book';
  observedAt: number;
  asin: string;
  marketplace: string;
  title: string;
  author: string;
  /** Best-seller rank now; null when Amazon removed it (data, not an error). */
  bsr: number | null;
  bsrCategory: string | null;
  /** Hourly BSR points, oldest first, trimmed to what the rules need (the rolling baseline). */
  bsrHistory: RankPoint[];
  reviewCount: number | null;
  averageRating: number | null;
  /**
   * Comparable titles the API lists with their BSR. Absent when the answer listed none: an empty
   * list is no data, never "every comp vanished" (and snapshots older than this field have none).
   */
  compTitles?: CompTitle[];
  /** Shares of positive / neutral / negative reviews (0..1); absent in older snapshots. */
  sentiment?: SentimentShares;
}

export interface CompTitle {
  asin: string;
  /** Untrusted public text. */
  title: string;
  /** null when Amazon shows no rank for the comp. */
  bsr: number | null;
}

export interface SentimentShares {
  positive: number;
  neutral: number;
  negative: number;
}

export interface KeywordRank {
  keyword: string;
  /** Position in search; null = not ranked. */
  rank: number | null;
}

export interface KeywordsObservation {
  kind: 'keywords';
  observedAt: number;
  asin: string;
  marketplace: string;
  /**
   * The tracked keywords: in API order (by traffic share) on a target's first poll, then in its
   * stored snapshot's order with new keywords after (`rules/keyword-order.ts`).
   */
  ranks: KeywordRank[];
}

export type ReviewPlatform = 'amazon' | 'audible' | 'goodreads';

export interface ReviewSummary {
  reviewId: string;
  asin: string;
  platform: ReviewPlatform;
  rating: number;
  publishedAt: number;
}

/** A review as the alert needs it: untrusted public text, escaped only by the channel rendering it. */
export interface ReviewDetail extends ReviewSummary {
  title: string | null;
  body: string;
  reviewer: string;
  url: string | null;
}

export interface ReviewsObservation {
  kind: 'reviews';
  observedAt: number;
  campaignId: string;
  /** Every review of the campaign the API lists now (newest first). */
  reviews: ReviewDetail[];
}

export interface MoneyMinor {
  /** Integer minor units (cents; yen for JPY). */
  minor: number;
  currency: string;
}

export interface SalesDay {
  asin: string;
  marketplace: string;
  /** `YYYY-MM-DD`. */
  date: string;
  units: number;
  royalties: MoneyMinor;
  adSpend: MoneyMinor;
}

export interface SalesObservation {
  kind: 'sales';
  observedAt: number;
  /** Marketplace filter of the target, or null for all. */
  marketplace: string | null;
  /** The last ~15 days (14 provisional plus one final), oldest first. */
  days: SalesDay[];
}

export type Observation = BookObservation | KeywordsObservation | ReviewsObservation | SalesObservation;

/** How a poll ended. Only `ok` may move a baseline; `no_data` and `error` never produce a change. */
export type PollOutcome =
  | { status: 'ok'; observation: Observation; requests: number }
  | { status: 'no_data'; reason: string; requests: number }
  | { status: 'error'; error: Error; requests: number };
