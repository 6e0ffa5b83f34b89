import type { Marketplace } from '../api/index.ts';
import { type AnalyticsClient, collectAll, type Page } from '../api/index.ts';
import type {
  BookObservation,
  KeywordsObservation,
  Observation,
  ReviewsObservation,
  SalesDay,
  SalesObservation,
} from '../model/observation.ts';
import { salesDaysOver } from '../model/sales-day.ts';
import { DAY_MS } from '../util/time-units.ts';
import type { WatchTarget } from './targets.ts';

/** BSR points kept in a snapshot: enough for a 24 h rolling median with room for a wider window. */
export const BSR_HISTORY_KEPT = 72;
/** Sales are provisional for 14 days; one more day shows a day turning final. */
export const SALES_DAYS = 15;
/**
 * A runaway cursor chain is a protocol fault, not a reason to spend the month's budget: 250 pages
 * (25,000 items: 1,000 books of sales over 15 days fit) and the poll fails instead.
 */
const MAX_PAGES = 250;

export interface FetchContext {
  signal: AbortSignal;
  /** The poll's time: stable across re-runs of the same job, so observations made from it are too. */
  nowMs: number;
}

export interface FetchResult {
  observation: Observation;
  /** Requests the poll made (pages, the quick retry), for the planner's cost estimate. */
  requests: number;
  /** The API answered with no items at all. */
  apiEmpty: boolean;
}

/** `known`: the target's stored observation, which a sales answer without figures must not erase. */
export async function fetchObservation(
  client: AnalyticsClient,
  target: WatchTarget,
  ctx: FetchContext,
  known?: Observation,
): Promise<FetchResult> {
  switch (target.kind) {
    case 'book':
      return fetchBook(client, target.asin, target.marketplace, ctx);
    case 'keywords':
      return fetchKeywords(client, target, ctx);
    case 'reviews':
      return fetchReviews(client, target.campaignId, ctx);
    case 'sales':
      return fetchSales(client, target.marketplace, ctx, known?.kind === 'sales' ? known.days : undefined);
  }
}

async function fetchBook(client: AnalyticsClient, asin: string, marketplace: string, ctx: FetchContext) {
  const { data, meta } = await client.getBook(asin, {
    marketplace: marketplace as Marketplace,
    signal: ctx.signal,
  });
  if (data.asin !== asin || data.marketplace !== marketplace) {
    throw new InconsistentAnswerError(
      `asked for ${asin} in ${marketplace}, the answer is about ${data.asin.slice(0, 20)} in ${data.marketplace}`,
    );
  }
  const observation: BookObservation = {
    kind: 'book',
    observedAt: Date.parse(data.bsr.observed_at),
    asin: data.asin,
    marketplace: data.marketplace,
    title: data.title,
    author: data.author,
    bsr: data.bsr.rank,
    bsrCategory: data.bsr.category,
    bsrHistory: data.bsr.history
      .slice(-BSR_HISTORY_KEPT)
      .map((p) => ({ at: Date.parse(p.at), rank: p.rank })),
    reviewCount: data.review_sentiment.review_count,
    averageRating: data.review_sentiment.average_rating,
  };
  // An empty comp list in one answer is no data, not "all comps vanished": left out.
  if (data.comp_titles.length > 0) {
    observation.compTitles = data.comp_titles.map((c) => ({ asin: c.asin, title: c.title, bsr: c.bsr }));
  }
  const { positive, neutral, negative } = data.review_sentiment;
  observation.sentiment = { positive, neutral, negative };
  return { observation, requests: meta.attempts, apiEmpty: false };
}

async function fetchKeywords(
  client: AnalyticsClient,
  target: Extract<WatchTarget, { kind: 'keywords' }>,
  ctx: FetchContext,
): Promise<FetchResult> {
  const { data, meta } = await client.getBookKeywords(target.asin, {
    marketplace: target.marketplace as Marketplace,
    signal: ctx.signal,
  });
  if (data.asin !== target.asin) {
    throw new InconsistentAnswerError(`asked for the keywords of ${target.asin}, got those of ${data.asin}`);
  }
  let ranks: KeywordsObservation['ranks'];
  if ('top' in target.keywords) {
    ranks = data.data.slice(0, target.keywords.top).map((k) => ({ keyword: k.keyword, rank: k.rank }));
  } else {
    // A tracked keyword missing from the book's top-1,000 list drives no traffic: it is not ranked.
    // The poller only gets here with a non-empty list (an empty one is no_data).
    const byKeyword = new Map(data.data.map((k) => [k.keyword, k.rank]));
    ranks = target.keywords.list.map((keyword) => ({ keyword, rank: byKeyword.get(keyword) ?? null }));
  }
  const observation: KeywordsObservation = {
    kind: 'keywords',
    observedAt: ctx.nowMs,
    asin: target.asin,
    marketplace: target.marketplace,
    ranks,
  };
  return { observation, requests: meta.attempts, apiEmpty: data.data.length === 0 };
}

/**
 * An answer that contradicts the request (another book's data): reading it would invent changes,
 * so the poll fails instead.
 */
export class InconsistentAnswerError extends Error {
  override readonly name = 'InconsistentAnswerError';
}

/** A list whose walk hit the page cap: reading it as the whole list would invent removals. */
export class PartialListError extends Error {
  override readonly name = 'PartialListError';
}

async function collect<T>(pages: AsyncIterable<Page<T>>): Promise<{ items: T[]; requests: number }> {
  const result = await collectAll(pages, { maxPages: MAX_PAGES });
  if (result.truncated)
    throw new PartialListError(`list longer than ${MAX_PAGES} pages; poll treated as failed`);
  return result;
}

async function fetchReviews(
  client: AnalyticsClient,
  campaignId: string,
  ctx: FetchContext,
): Promise<FetchResult> {
  const { items, requests } = await collect(
    client.listArcReviews({ campaignId, limit: 100 }, { signal: ctx.signal }),
  );
  const observation: ReviewsObservation = {
    kind: 'reviews',
    observedAt: ctx.nowMs,
    campaignId,
    reviews: items.map((r) => ({
      reviewId: r.review_id,
      asin: r.asin,
      platform: r.platform,
      rating: r.rating,
      publishedAt: Date.parse(r.published_at),
      title: r.title,
      body: r.body,
      reviewer: r.reviewer,
      url: r.url,
    })),
  };
  return { observation, requests, apiEmpty: items.length === 0 };
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

async function fetchSales(
  client: AnalyticsClient,
  marketplace: string | null,
  ctx: FetchContext,
  known: readonly SalesDay[] | undefined,
) {
  const to = isoDate(ctx.nowMs);
  const from = isoDate(ctx.nowMs - (SALES_DAYS - 1) * DAY_MS);
  const { items, requests } = await collect(
    client.listSales(
      { from, to, limit: 100, ...(marketplace === null ? {} : { marketplace: marketplace as Marketplace }) },
      { signal: ctx.signal },
    ),
  );
  // A row with "no figure" keeps the day as it was stored (sales-day.ts): a partial answer erases nothing.
  const days: SalesDay[] = salesDaysOver(items, known);
  days.sort((a, b) => (a.date === b.date ? a.asin.localeCompare(b.asin) : a.date < b.date ? -1 : 1));
  // The same day twice in one answer: keep the first, so the same answer always reads the same
  // (a contradicting duplicate would otherwise flip between polls and look like a revision).
  const seen = new Set<string>();
  const unique = days.filter((day) => {
    const key = `${day.asin}|${day.marketplace}|${day.date}|${day.royalties.currency}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const observation: SalesObservation = { kind: 'sales', observedAt: ctx.nowMs, marketplace, days: unique };
  return { observation, requests, apiEmpty: items.length === 0 };
}

/**
 * "Empty where data was expected": an answer that would read as "everything vanished" compared with
 * the previous snapshot. It is reported as no_data and never diffed. A book's keyword list is never
 * legitimately empty; a campaign or a sales range may be, until it has had data once.
 */
export function isEmptyWhereDataExpected(result: FetchResult, prev: Observation | undefined): boolean {
  if (!result.apiEmpty) return false;
  switch (result.observation.kind) {
    case 'keywords':
      return true;
    case 'reviews':
      return prev?.kind === 'reviews' && prev.reviews.length > 0;
    case 'sales':
      return prev?.kind === 'sales' && prev.days.length > 0;
    case 'book':
      return false;
  }
}
