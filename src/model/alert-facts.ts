/**
 * The facts each family of alert kinds carries (`alert.ts` maps every kind to one of these). Plain
 * JSON values; text is untrusted where it comes from the public (titles, keywords, review text,
 * error text). Every fact is optional: alerts come back from job data written by older versions, and
 * renderers show a dash for what is missing. A fact a kind does not have is a compile error to read.
 */

/** The book an alert is about, when its name is known. */
export interface BookFacts {
  asin?: string;
  marketplace?: string | null;
  bookTitle?: string | null;
  author?: string | null;
}

/** How far a recovered rank fell and how long the episode lasted (rules/low-point.ts). */
export interface LowPointFacts {
  lowPoint?: number | null;
  lowPointUnranked?: boolean;
  firedAt?: number | null;
  downForMs?: number;
}

/** Repeats of a still-firing condition count from 1 (0: the first fire). */
export interface RepeatFacts {
  repeat?: number;
}

export interface KeywordRankFacts extends BookFacts, LowPointFacts, RepeatFacts {
  keyword?: string;
  before?: number | null;
  after?: number | null;
  positionsLost?: number | null;
  percentWorse?: number | null;
  unranked?: boolean;
  /** Internal trigger names (`positions,top_n`): shown in words, never as they are. */
  trigger?: string | null;
  topN?: number | null;
  /** Hourly rankings judged after the fact: the hour judged, and how many before it were unreadable. */
  hour?: string;
  unreadableHours?: number;
}

export interface BsrRankFacts extends BookFacts, LowPointFacts, RepeatFacts {
  category?: string | null;
  before?: number | null;
  after?: number | null;
  ratio?: number | null;
  rankChange?: number | null;
  baselineHours?: number;
}

export interface BsrRemovalFacts extends BookFacts, RepeatFacts {
  category?: string | null;
  before?: number | null;
  after?: number | null;
  removedAt?: number;
  downForMs?: number;
}

export interface ReviewFacts extends BookFacts {
  campaignId?: string;
  /** The campaign's configured name, when it has one. */
  campaignName?: string;
  reviewId?: string;
  platform?: string;
  rating?: number;
  reviewer?: string;
  reviewTitle?: string | null;
  body?: string;
  url?: string | null;
  publishedAt?: number;
  lowStar?: boolean;
  /** A restored review: when it was announced as removed. */
  removedAt?: number;
}

export interface ReviewCountFacts extends BookFacts {
  before?: number;
  after?: number;
  delta?: number;
  averageRating?: number | null;
}

export interface CompFacts extends BookFacts, RepeatFacts {
  compAsin?: string;
  compTitle?: string | null;
  bookBsr?: number | null;
  compBsr?: number | null;
  ratio?: number | null;
  margin?: number;
}

export interface SentimentFacts extends BookFacts, RepeatFacts {
  /** `rating` (stars) or `sentiment` (net points): which reading moved. */
  measure?: string;
  before?: number | null;
  after?: number | null;
  change?: number | null;
  threshold?: number | null;
  reviewCount?: number | null;
}

export interface RoyaltyFacts {
  asin?: string;
  marketplace?: string | null;
  /** The book's title and author where a book snapshot names it (poll/book-names.ts). */
  bookTitle?: string | null;
  author?: string | null;
  date?: string;
  currency?: string;
  royalties?: number;
  units?: number;
  dayBefore?: number | null;
  dayBeforeChangePct?: number | null;
  trailingAverage?: number | null;
  trailingChangePct?: number | null;
  trailingDaysUsed?: number;
  comparedWith?: string;
  provisional?: boolean;
}

export interface SalesRevisionFacts {
  asin?: string;
  marketplace?: string | null;
  /** The book's title and author where a book snapshot names it (poll/book-names.ts). */
  bookTitle?: string | null;
  author?: string | null;
  date?: string;
  unitsBefore?: number;
  unitsAfter?: number;
  unitsDelta?: number;
  royaltiesBefore?: number;
  royaltiesAfter?: number;
  royaltiesDelta?: number | null;
  royaltiesCurrency?: string;
  adSpendBefore?: number;
  adSpendAfter?: number;
  adSpendDelta?: number | null;
  adSpendCurrency?: string;
  provisional?: boolean;
}

/** A workspace paused by the API: no target, no streak. */
export interface PauseFacts {
  scope?: 'workspace';
  pauseReason?: string;
  since?: number;
}

export interface SourceFailingFacts extends PauseFacts {
  targetId?: string;
  /** The book of a book or keywords target, when the poller knows its title. */
  bookTitle?: string;
  author?: string | null;
  failures?: number;
  /** The poll outcome (`error`, `no_data`, …) or, for a disabled channel, its HTTP status. */
  status?: string | number | null;
  lastError?: string;
  drift?: string;
  pausedUntil?: number;
  /** A channel disabled for good (deliver/channel-health.ts). */
  channel?: string;
  reason?: string;
}

export interface SourceRecoveredFacts extends PauseFacts {
  targetId?: string;
  bookTitle?: string;
  author?: string | null;
  failedPolls?: number;
  downForMs?: number;
  /** The sample of `shelfwatch test-alert` (deliver/sample-alert.ts) borrows this kind. */
  test?: boolean;
  channel?: string;
  sent_at?: string;
}

/** Redis lost shelfwatch's state (app/state-watch.ts): the state markers before and now, and when. */
export interface StateLostFacts {
  previousEpoch: string;
  epoch: string;
  /** When the process that raised it noticed. */
  detectedAt: number;
}

/** Redis accepts writes again after refusing them for want of memory (app/redis-full.ts). */
export interface RedisWritableFacts {
  /** When the process that raised it saw the first refusal. */
  since: number;
  fullForMs: number;
  /** Refusals that process counted in the stretch. */
  refused: number;
}
