/** Hand-built observations and inputs for the pure digest tests. */

import type { DigestInputs, LastDigest } from '../../src/digest/types.ts';
import type {
  BookObservation,
  KeywordsObservation,
  RankPoint,
  ReviewDetail,
  ReviewsObservation,
  SalesDay,
} from '../../src/model/observation.ts';
import { toMinor } from '../../src/util/money.ts';

export const HOUR = 3_600_000;
export const A = 'B0AAAAAAAA';
export const B = 'B0BBBBBBBB';
export const C = 'B0CCCCCCCC';

const CURRENCY: Record<string, string> = { US: 'USD', UK: 'GBP', DE: 'EUR', FR: 'EUR', JP: 'JPY' };

/** One API row: money as the API's decimal strings, converted the way gathering does. */
export function row(
  asin: string,
  marketplace: string,
  date: string,
  units: number,
  royalties: string,
  adSpend = '0.00',
): SalesDay {
  const currency = CURRENCY[marketplace] ?? 'USD';
  return {
    asin,
    marketplace,
    date,
    units,
    royalties: { minor: toMinor(royalties, currency), currency },
    adSpend: { minor: toMinor(adSpend, currency), currency },
  };
}

/** Hourly points from `startMs`, one per rank given (null = no rank that hour). */
export function hourly(startMs: number, ranks: readonly (number | null)[]): RankPoint[] {
  return ranks.map((rank, i) => ({ at: startMs + i * HOUR, rank }));
}

export function book(
  asin: string,
  marketplace: string,
  history: RankPoint[],
  title = `Title of ${asin}`,
): BookObservation {
  const last = history.at(-1);
  return {
    kind: 'book',
    observedAt: (last?.at ?? 0) + HOUR,
    asin,
    marketplace,
    title,
    author: 'Someone',
    bsr: last?.rank ?? null,
    bsrCategory: 'Kindle Store',
    bsrHistory: history,
    reviewCount: null,
    averageRating: null,
  };
}

export function keywordObs(asin: string, ranks: Record<string, number | null>): KeywordsObservation {
  return {
    kind: 'keywords',
    observedAt: 0,
    asin,
    marketplace: 'US',
    ranks: Object.entries(ranks).map(([keyword, rank]) => ({ keyword, rank })),
  };
}

export function review(id: string, asin: string, rating: number, publishedAt: number): ReviewDetail {
  return {
    reviewId: id,
    asin,
    platform: 'amazon',
    rating,
    publishedAt,
    title: null,
    body: '',
    reviewer: '',
    url: null,
  };
}

export function campaign(id: string, reviews: ReviewDetail[]): ReviewsObservation {
  return { kind: 'reviews', observedAt: 0, campaignId: id, reviews };
}

export function inputs(overrides: Partial<DigestInputs> & Pick<DigestInputs, 'day' | 'nowMs'>): DigestInputs {
  return {
    workspace: 'acme',
    timeZone: 'UTC',
    sales: { status: 'ok', rows: [], from: overrides.day, to: overrides.day, requests: 1 },
    expectedPairs: [],
    books: [],
    keywords: [],
    campaigns: [],
    previous: null,
    ...overrides,
  };
}

export function lastDigest(overrides: Partial<LastDigest> = {}): LastDigest {
  return {
    version: 1,
    day: '2026-11-20',
    builtAtMs: 0,
    salesFrom: null,
    salesTo: null,
    sales: [],
    keywordRanks: [],
    reviewIds: [],
    ...overrides,
  };
}
