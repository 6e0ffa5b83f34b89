/**
 * The digest's data model: what gathering hands to the pure figures (`DigestInputs`), what the
 * figures are (`DigestFigures`, rendered by the templates), and what a sent digest leaves behind
 * for the next one (`LastDigest`). Money is integer minor units with its currency, never a float,
 * and never added up across currencies. `null` means "no data", which is never shown as 0.
 */

import type {
  BookObservation,
  KeywordsObservation,
  RankPoint,
  ReviewPlatform,
  ReviewsObservation,
  SalesDay,
} from '../model/observation.ts';

export type SalesFetch =
  /** Rows as the API answered for `from`..`to` (the digest day and the 7 days before). */
  | { status: 'ok'; rows: SalesDay[]; from: string; to: string; requests: number }
  /** The fetch failed: the digest says "sales data unavailable (reason)", never zeros. */
  | { status: 'unavailable'; reason: string }
  /** The workspace watches no sales (`sales: false`). */
  | { status: 'off' };

export interface PairRef {
  asin: string;
  marketplace: string;
}

export interface CampaignInput {
  campaignId: string;
  /** The configured name (`campaigns[].name`). */
  campaignName?: string;
  /** Titles of the campaign's books that are not watched, as cached by the poller (title-cache.ts). */
  bookTitles?: ReadonlyMap<string, string>;
  /** Readers invited so far (`arc invite`); null when none were ever recorded. */
  invites: number | null;
  /** The campaign's review snapshot; null before its first ok poll. */
  reviews: ReviewsObservation | null;
}

export interface DigestInputs {
  workspace: string;
  timeZone: string;
  /** The digest's day: the recipient's local yesterday, `YYYY-MM-DD`. */
  day: string;
  nowMs: number;
  sales: SalesFetch;
  /** Book × marketplace pairs the config watches sales for: a day without their row is "no data". */
  expectedPairs: PairRef[];
  books: BookObservation[];
  keywords: KeywordsObservation[];
  campaigns: CampaignInput[];
  /** What the previous digest to the same recipient reported; null for the first one. */
  previous: LastDigest | null;
  /** Alerts of the workspace silenced during the digest day (absent: not read). */
  silenced?: SilencedSummary;
}

/** Alerts a silence or mute window kept back on the digest day: counted, not sent. */
export interface SilencedSummary {
  count: number;
  /** The silences' reasons, most frequent first. */
  reasons: string[];
}

/** Figures of some rows in one currency. Money in minor units of `currency`. */
export interface Amounts {
  units: number;
  royalties: number;
  adSpend: number;
  /** Royalties − ad spend; null when the ad spend was in another currency. */
  net: number | null;
  /** Ad spend ÷ royalties (a ratio, 0.25 = 25%); null when royalties are 0 or currencies differ. */
  acos: number | null;
}

export interface PairFigures extends PairRef {
  title: string | null;
  currency: string;
  /** null: the API returned no row for the digest day ("no data", not 0). */
  yesterday: (Amounts & { provisional: boolean }) | null;
  /** The 7 days ending on the digest day, over the days that had data; null when none had. */
  week: (Amounts & { daysWithData: number; provisional: boolean }) | null;
}

export interface CurrencyTotals {
  currency: string;
  yesterday: (Amounts & { pairs: number; provisional: boolean }) | null;
  week: (Amounts & { provisional: boolean }) | null;
  /** Royalties per date of the week (oldest first); null where no pair in this currency reported. */
  daily: (number | null)[];
}

export interface SalesMover extends PairRef {
  currency: string;
  /** Royalties of the digest day and the mean of the previous days with data (minor units). */
  yesterday: number;
  baseline: number;
  /** Change in percent of the baseline; null when the baseline was 0. */
  changePct: number | null;
}

export type Revision = PairRef & { date: string } & (
    | {
        kind: 'revised';
        field: 'royalties' | 'adSpend' | 'units';
        before: number;
        after: number;
        /** null for units. */
        currency: string | null;
      }
    /** A day the last digest had no data for now has a row. */
    | { kind: 'late'; royalties: number; currency: string }
    /** A day the last digest reported is no longer in the API's answer. */
    | { kind: 'withdrawn'; royalties: number; currency: string }
  );

export type SalesSection =
  | {
      status: 'ok';
      /** The week's dates, oldest first; the last one is the digest day. */
      dates: string[];
      pairs: PairFigures[];
      totals: CurrencyTotals[];
      /** Expected pairs without a row for the digest day. */
      missingYesterday: PairRef[];
      movers: SalesMover[];
      revisions: Revision[];
      /** Per currency: how much the revisions moved royalties in all (late − withdrawn included). */
      revisionTotals: { currency: string; royalties: number; figures: number }[];
    }
  | { status: 'unavailable'; reason: string }
  | { status: 'off' };

export interface BsrLine extends PairRef {
  title: string | null;
  /** Median rank over the local digest day / the local day before; null without enough points. */
  yesterdayMedian: number | null;
  dayBeforeMedian: number | null;
  pointsYesterday: number;
  pointsDayBefore: number;
  /** log10(day before ÷ yesterday): positive = better (a lower rank). */
  change: number | null;
  /** Hourly points of the two local days, for the chart. */
  history: RankPoint[];
}

export interface KeywordMove extends PairRef {
  keyword: string;
  before: number | null;
  after: number | null;
  /** log10(before ÷ after): positive = better; null when entering or leaving the ranking. */
  change: number | null;
}

export interface NewReview {
  reviewId: string;
  campaignId: string;
  campaignName?: string;
  asin: string;
  title: string | null;
  platform: ReviewPlatform;
  rating: number;
  publishedAt: number;
}

export interface ArcProgress {
  campaignId: string;
  campaignName?: string;
  asin: string | null;
  /** The title of `asin`, when known. */
  title: string | null;
  invites: number | null;
  /** Reviews the campaign has now; null before its first poll. */
  reviews: number | null;
  averageRating: number | null;
  /**
   * Reviews ÷ invites in percent, at most 100; null without both, or when there are more reviews
   * than invites on record (`invitesShort`): a rate over 100% ("433%") says nothing true.
   */
  ratePct: number | null;
  /** More reviews than invites on record: readers were invited where shelfwatch did not see it. */
  invitesShort: boolean;
}

export interface DigestFigures {
  workspace: string;
  timeZone: string;
  day: string;
  /** `Sat 21 Nov`. */
  dayLabel: string;
  /** Length of the local digest day in hours (23, 24 or 25). */
  dayHours: number;
  builtAtMs: number;
  firstDigest: boolean;
  sales: SalesSection;
  bsr: { books: BsrLine[]; movers: BsrLine[] };
  keywords: {
    /** True when there is no previous digest to compare ranks with. */
    baseline: boolean;
    tracked: number;
    movers: KeywordMove[];
    entered: KeywordMove[];
    left: KeywordMove[];
  };
  reviews: {
    since: 'last_digest' | 'digest_day';
    items: NewReview[];
    averageRating: number | null;
    /** Campaigns with no review snapshot yet (not polled). */
    unpolled: string[];
  };
  arc: ArcProgress[];
  silenced?: SilencedSummary;
  /** "Your book vs its comps": books whose last answer listed comp titles. */
  comps: CompLine[];
  /** Review sentiment per watched book, with the last digest's figures for the trend. */
  sentiment: SentimentLine[];
  /** Nothing moved: the digest says so, which also proves the worker is alive. */
  quiet: boolean;
}

/** Stored after a successful send; the next digest to the same recipient compares with it. */
export interface LastDigest {
  version: 1;
  day: string;
  builtAtMs: number;
  /** The sales window it covered and every row it reported. */
  salesFrom: string | null;
  salesTo: string | null;
  sales: SalesDay[];
  keywordRanks: { asin: string; marketplace: string; keyword: string; rank: number | null }[];
  reviewIds: string[];
  /** Sentiment per book as this digest reported it; absent in records of older versions. */
  sentiment?: { asin: string; marketplace: string; averageRating: number | null; net: number | null }[];
}

/** One comp title against the book, for the comps section (`comps-sentiment.ts`). */
export interface CompStanding {
  asin: string;
  title: string;
  bsr: number | null;
  /** The comp ranks better than the book now; null when either has no rank. */
  ahead: boolean | null;
}

export interface CompLine extends PairRef {
  title: string;
  bookBsr: number | null;
  /** Best rank first; unranked comps last. */
  comps: CompStanding[];
}

export interface SentimentLine extends PairRef {
  title: string;
  reviewCount: number | null;
  averageRating: number | null;
  /** positive − negative in percentage points; null when the snapshot has no shares. */
  net: number | null;
  positive: number | null;
  negative: number | null;
  /** What the last digest to the same recipient reported; null for none. */
  ratingBefore: number | null;
  netBefore: number | null;
}
