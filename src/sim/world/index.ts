import { Rng } from '../prng.ts';
import { ceilTo, DAY, floorTo, HOUR, isoSeconds } from '../time.ts';
import { bsrSeries, generatedBsr } from './bsr.ts';
import { type Book, Catalogue, type FixedCatalogue } from './catalogue.ts';
import { EventStore, type Review } from './events.ts';
import { KeywordCatalogue, keywordRankSeries, keywordStats, trafficShares } from './keywords.ts';
import type { Marketplace } from './market.ts';
import { ReviewFeed } from './reviews.ts';

export type { Book, Campaign, FixedCatalogue } from './catalogue.ts';
export type { Review } from './events.ts';

const HISTORY_HOURS = 30 * 24;
const ORGANIC_KEYWORDS = 10;
/** Keywords per book that /v1/rankings reports without a keyword filter. */
export const TRACKED_KEYWORDS = 10;
/** Review counts grow from this fixed instant, so they are a function of the hour alone. */
const REVIEW_EPOCH = Date.UTC(2024, 0, 1);

export interface WorldOptions {
  seed: number;
  books: number;
  campaigns: number;
  startMs: number;
  fixed?: FixedCatalogue;
}

export interface SeriesRef {
  book: Book;
  keyword: string;
  position: number | undefined;
}

function twoDecimals(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * The simulated world: a pure function of (seed, start day, sim time) plus the scripted events.
 * Builds the contract's payloads; the HTTP layer only validates, paginates and answers.
 */
export class World {
  readonly rng: Rng;
  readonly catalogue: Catalogue;
  readonly events = new EventStore();
  readonly keywords: KeywordCatalogue;
  private readonly reviewFeed: ReviewFeed;

  constructor(options: WorldOptions) {
    this.rng = new Rng(options.seed);
    this.catalogue = new Catalogue(this.rng, options);
    this.keywords = new KeywordCatalogue(this.rng);
    this.reviewFeed = new ReviewFeed(this.rng);
  }

  bsr(book: Book, marketplace: Marketplace): (hourMs: number) => number | null {
    return bsrSeries(this.rng, this.events, book, marketplace);
  }

  keywordRank(ref: SeriesRef, marketplace: Marketplace): (hourMs: number) => number | null {
    return keywordRankSeries(this.rng, this.events, ref.book, ref.position, ref.keyword, marketplace);
  }

  bookPayload(book: Book, marketplace: Marketplace, nowMs: number) {
    const hourMs = floorTo(nowMs, HOUR);
    const bsr = this.bsr(book, marketplace);
    const history: { at: string; rank: number | null }[] = [];
    for (let at = hourMs - (HISTORY_HOURS - 1) * HOUR; at <= hourMs; at += HOUR) {
      history.push({ at: isoSeconds(at), rank: bsr(at) });
    }
    const top = this.keywords
      .forBook(book, ORGANIC_KEYWORDS)
      .map((keyword, position) => ({ book, keyword, position }));
    const topSet = new Set(top.map((ref) => ref.keyword));
    const scripted = this.events
      .eventKeywords(book.asin, marketplace)
      .filter((keyword) => !topSet.has(keyword))
      .map((keyword) => ({ book, keyword, position: this.keywords.positionOf(book, keyword) }));
    return {
      asin: book.asin,
      marketplace,
      title: book.title,
      author: book.author,
      bsr: {
        rank: bsr(hourMs),
        category: 'Kindle Store',
        observed_at: isoSeconds(hourMs),
        history,
      },
      organic_keywords: [...top, ...scripted].map((ref) => ({
        keyword: ref.keyword,
        rank: this.keywordRank(ref, marketplace)(hourMs),
      })),
      comp_titles: this.compTitles(book, marketplace, hourMs),
      review_sentiment: this.sentiment(book, nowMs),
    };
  }

  /** Comp titles with their generated ranks, or what the control endpoint scripted. */
  private compTitles(book: Book, marketplace: Marketplace, hourMs: number) {
    if (!this.events.compsListed(book.asin, marketplace, hourMs)) return [];
    return book.comps.flatMap((asin) => {
      const comp = this.catalogue.book(asin);
      if (comp === undefined) return [];
      const scripted = this.events.compBsr(book.asin, marketplace, asin, hourMs);
      // Pool books have no rank gaps, so a generated comp bsr is always a number.
      const bsr =
        scripted === undefined
          ? (generatedBsr(this.rng, comp, marketplace, hourMs / HOUR) ?? 1)
          : scripted.rank;
      return [{ asin, title: comp.title, bsr }];
    });
  }

  private sentiment(book: Book, nowMs: number) {
    const days = Math.max(0, (nowMs - REVIEW_EPOCH) / DAY);
    const scripted = this.events.sentiment(book.asin, floorTo(nowMs, HOUR));
    const average =
      scripted?.averageRating ??
      Math.min(5, Math.max(1, book.rating + 0.1 * this.rng.valueNoise(14, days, 'rating-drift', book.asin)));
    const positive = twoDecimals(scripted?.positive ?? Math.min(0.97, 0.4 + (average - 3) * 0.28));
    const negative = twoDecimals(scripted?.negative ?? Math.max(0.01, 0.03 + (5 - average) * 0.05));
    return {
      average_rating: twoDecimals(average),
      review_count: book.reviewBase + Math.floor(days * book.reviewsPerDay),
      positive,
      neutral: twoDecimals(1 - positive - negative),
      negative,
    };
  }

  bookKeywords(book: Book, marketplace: Marketplace, nowMs: number) {
    const hourMs = floorTo(nowMs, HOUR);
    const generated = this.keywords.forBook(book);
    const list = this.keywords.withEvents(book, marketplace, this.events);
    const shares = trafficShares(list.length);
    return list.map((keyword, index) => {
      const position = index < generated.length && generated[index] === keyword ? index : undefined;
      return {
        keyword,
        rank: this.keywordRank({ book, keyword, position }, marketplace)(hourMs),
        search_volume: this.keywordStatsVolume(keyword, marketplace),
        traffic_share: shares[index] ?? 0,
      };
    });
  }

  private keywordStatsVolume(keyword: string, marketplace: Marketplace): number {
    return keywordStats(this.rng, keyword, marketplace).search_volume;
  }

  /** Series /v1/rankings reports: the books' top keywords (or the filtered ones) plus scripted ones. */
  rankingSeries(books: readonly Book[], keywords: readonly string[], marketplace: Marketplace): SeriesRef[] {
    const out: SeriesRef[] = [];
    for (const book of books) {
      if (!book.marketplaces.includes(marketplace)) continue;
      const scripted = this.events.eventKeywords(book.asin, marketplace);
      if (keywords.length > 0) {
        for (const keyword of keywords) {
          const position = this.keywords.positionOf(book, keyword);
          if (position !== undefined || scripted.includes(keyword)) out.push({ book, keyword, position });
        }
        continue;
      }
      const tracked = this.keywords.forBook(book, TRACKED_KEYWORDS);
      tracked.forEach((keyword, position) => {
        out.push({ book, keyword, position });
      });
      for (const keyword of scripted) {
        if (!tracked.includes(keyword))
          out.push({ book, keyword, position: this.keywords.positionOf(book, keyword) });
      }
    }
    return out;
  }

  /** Hourly points from the first whole hour at or after `fromMs` to `toMs`, never past the current hour. */
  seriesPoints(ref: SeriesRef, marketplace: Marketplace, fromMs: number, toMs: number, nowMs: number) {
    const points: { at: string; rank: number | null }[] = [];
    const last = Math.min(toMs, floorTo(nowMs, HOUR));
    const rank = this.keywordRank(ref, marketplace);
    for (let at = ceilTo(fromMs, HOUR); at <= last; at += HOUR)
      points.push({ at: isoSeconds(at), rank: rank(at) });
    return points;
  }

  /** Reviews visible at `nowMs`, newest first (ties broken by id, so pages are stable). */
  reviews(nowMs: number): Review[] {
    const visible = [];
    for (const campaign of this.catalogue.campaigns) {
      for (const timed of this.reviewFeed.upTo(campaign, nowMs)) visible.push(timed);
    }
    for (const timed of this.events.scriptedReviews()) if (timed.publishedMs <= nowMs) visible.push(timed);
    return visible
      .filter((timed) => {
        if (timed.vanishMs !== undefined && timed.vanishMs <= nowMs) return false;
        const removed = this.events.removedAt(timed.review.review_id);
        return removed === undefined || removed > nowMs;
      })
      .sort((a, b) => b.publishedMs - a.publishedMs || (a.review.review_id < b.review.review_id ? 1 : -1))
      .map((timed) => timed.review);
  }

  /** Whether a review with this id was ever published by `nowMs` (vanished ones included). */
  reviewExists(reviewId: string, nowMs: number): boolean {
    if (this.events.scriptedReviews().some((timed) => timed.review.review_id === reviewId)) return true;
    return this.catalogue.campaigns.some((campaign) =>
      this.reviewFeed.upTo(campaign, nowMs).some((timed) => timed.review.review_id === reviewId),
    );
  }
}
