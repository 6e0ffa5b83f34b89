import { floorTo, HOUR } from '../time.ts';
import type { Marketplace } from './market.ts';

/**
 * Scripted events recorded by the control endpoint. Each one overrides the generated world from
 * the sim-clock hour it was applied in onward, so the very next answer shows it and earlier hours
 * keep their generated values.
 */
export interface RankOverride {
  readonly at: number;
  readonly rank: number | null;
}

export type Platform = 'amazon' | 'audible' | 'goodreads';
export const PLATFORMS: readonly Platform[] = ['amazon', 'audible', 'goodreads'];

export interface Review {
  readonly review_id: string;
  readonly campaign_id: string;
  readonly asin: string;
  readonly platform: Platform;
  readonly rating: number;
  readonly title: string | null;
  readonly body: string;
  readonly reviewer: string;
  readonly url: string | null;
  readonly published_at: string;
}

export interface TimedReview {
  readonly review: Review;
  readonly publishedMs: number;
  /** When the platform removes it, if ever. */
  readonly vanishMs: number | undefined;
}

export interface SalesRevision {
  readonly at: number;
  readonly royaltiesMinor?: number | undefined;
  readonly units?: number | undefined;
  readonly adSpendMinor?: number | undefined;
}

/** A scripted review sentiment; shares left out follow from the average as generated ones do. */
export interface SentimentOverride {
  readonly at: number;
  readonly averageRating: number;
  readonly positive?: number | undefined;
  readonly negative?: number | undefined;
}

function latestFor<T extends { readonly at: number }>(
  list: readonly T[] | undefined,
  hourMs: number,
): T | undefined {
  if (list === undefined) return undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    const entry = list[i]!;
    if (floorTo(entry.at, HOUR) <= hourMs) return entry;
  }
  return undefined;
}

export class EventStore {
  private readonly keywordRanks = new Map<string, RankOverride[]>();
  private readonly eventKeywordsByBook = new Map<string, string[]>();
  private readonly bsrRanks = new Map<string, RankOverride[]>();
  private readonly addedReviews: TimedReview[] = [];
  private readonly removedReviews = new Map<string, number>();
  private readonly salesRevisions = new Map<string, SalesRevision[]>();
  private readonly compRanks = new Map<string, RankOverride[]>();
  private readonly compListings = new Map<string, { at: number; listed: boolean }[]>();
  private readonly sentiments = new Map<string, SentimentOverride[]>();

  setKeywordRank(
    asin: string,
    marketplace: Marketplace,
    keyword: string,
    rank: number | null,
    at: number,
  ): void {
    const key = `${asin}|${marketplace}|${keyword}`;
    const list = this.keywordRanks.get(key) ?? [];
    list.push({ at, rank });
    this.keywordRanks.set(key, list);
    const bookKey = `${asin}|${marketplace}`;
    const keywords = this.eventKeywordsByBook.get(bookKey) ?? [];
    if (!keywords.includes(keyword)) keywords.push(keyword);
    this.eventKeywordsByBook.set(bookKey, keywords);
  }

  /** The override in force at the hour starting at `hourMs`, if any. */
  keywordRank(
    asin: string,
    marketplace: Marketplace,
    keyword: string,
    hourMs: number,
  ): RankOverride | undefined {
    return latestFor(this.keywordRanks.get(`${asin}|${marketplace}|${keyword}`), hourMs);
  }

  /** Keywords that scripted events gave this book, in the order they were first scripted. */
  eventKeywords(asin: string, marketplace: Marketplace): readonly string[] {
    return this.eventKeywordsByBook.get(`${asin}|${marketplace}`) ?? [];
  }

  setBsr(asin: string, marketplace: Marketplace, rank: number | null, at: number): void {
    const key = `${asin}|${marketplace}`;
    const list = this.bsrRanks.get(key) ?? [];
    list.push({ at, rank });
    this.bsrRanks.set(key, list);
  }

  bsr(asin: string, marketplace: Marketplace, hourMs: number): RankOverride | undefined {
    return latestFor(this.bsrRanks.get(`${asin}|${marketplace}`), hourMs);
  }

  setCompBsr(
    asin: string,
    marketplace: Marketplace,
    compAsin: string,
    rank: number | null,
    at: number,
  ): void {
    pushTo(this.compRanks, `${asin}|${marketplace}|${compAsin}`, { at, rank });
  }

  /** The rank a book's payload shows for one of its comp titles, when scripted. */
  compBsr(
    asin: string,
    marketplace: Marketplace,
    compAsin: string,
    hourMs: number,
  ): RankOverride | undefined {
    return latestFor(this.compRanks.get(`${asin}|${marketplace}|${compAsin}`), hourMs);
  }

  /** `listed: false` makes the book's payload answer an empty comp list from this hour on. */
  setCompListing(asin: string, marketplace: Marketplace, listed: boolean, at: number): void {
    pushTo(this.compListings, `${asin}|${marketplace}`, { at, listed });
  }

  compsListed(asin: string, marketplace: Marketplace, hourMs: number): boolean {
    return latestFor(this.compListings.get(`${asin}|${marketplace}`), hourMs)?.listed ?? true;
  }

  setSentiment(asin: string, override: SentimentOverride): void {
    pushTo(this.sentiments, asin, override);
  }

  sentiment(asin: string, hourMs: number): SentimentOverride | undefined {
    return latestFor(this.sentiments.get(asin), hourMs);
  }

  addReview(review: TimedReview): void {
    this.addedReviews.push(review);
  }

  scriptedReviews(): readonly TimedReview[] {
    return this.addedReviews;
  }

  removeReview(reviewId: string, at: number): void {
    if (!this.removedReviews.has(reviewId)) this.removedReviews.set(reviewId, at);
  }

  /** When a scripted removal took the review down, if one did. */
  removedAt(reviewId: string): number | undefined {
    return this.removedReviews.get(reviewId);
  }

  reviseSales(asin: string, marketplace: Marketplace, dateMs: number, revision: SalesRevision): void {
    const key = `${asin}|${marketplace}|${dateMs}`;
    const list = this.salesRevisions.get(key) ?? [];
    list.push(revision);
    this.salesRevisions.set(key, list);
  }

  /** All revisions of that day applied by `nowMs`, merged field by field (later ones win). */
  salesRevision(
    asin: string,
    marketplace: Marketplace,
    dateMs: number,
    nowMs: number,
  ): SalesRevision | undefined {
    const list = this.salesRevisions.get(`${asin}|${marketplace}|${dateMs}`);
    if (list === undefined) return undefined;
    let merged: SalesRevision | undefined;
    for (const revision of list) {
      if (revision.at > nowMs) continue;
      merged = {
        at: revision.at,
        royaltiesMinor: revision.royaltiesMinor ?? merged?.royaltiesMinor,
        units: revision.units ?? merged?.units,
        adSpendMinor: revision.adSpendMinor ?? merged?.adSpendMinor,
      };
    }
    return merged;
  }
}

function pushTo<T>(map: Map<string, T[]>, key: string, entry: T): void {
  const list = map.get(key) ?? [];
  list.push(entry);
  map.set(key, list);
}
