/**
 * The figures of one digest for one workspace and one local day, pure: inputs in (sales rows,
 * snapshots, invite counters, the last digest), figures out. Rendering and sending live elsewhere.
 */
import type { ReviewDetail } from '../model/observation.ts';
import { HOUR_MS } from '../util/time-units.ts';
import { compLines, sentimentLines, sentimentMemory } from './comps-sentiment.ts';
import { dayLabel, localDayBounds } from './dates.ts';
import { bsrLines, bsrMovers, keywordMoves, keywordRanksOf } from './movers.ts';
import { salesSection } from './sales.ts';
import type {
  ArcProgress,
  DigestFigures,
  DigestInputs,
  LastDigest,
  NewReview,
  SalesSection,
} from './types.ts';

function average(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;
}

function titlesOf(inputs: DigestInputs): Map<string, string> {
  const titles = new Map<string, string>();
  for (const book of inputs.books) if (!titles.has(book.asin)) titles.set(book.asin, book.title);
  for (const campaign of inputs.campaigns) {
    for (const [asin, title] of campaign.bookTitles ?? []) if (!titles.has(asin)) titles.set(asin, title);
  }
  return titles;
}

/**
 * New reviews: those whose id the last digest had not seen; for a first digest, those published
 * during the local digest day. Reviews are read from the campaigns' snapshots, which keep no text.
 */
function newReviews(inputs: DigestInputs, titles: ReadonlyMap<string, string>): NewReview[] {
  const seen = inputs.previous === null ? null : new Set(inputs.previous.reviewIds);
  const { startMs, endMs } = localDayBounds(inputs.day, inputs.timeZone);
  const isNew = (r: ReviewDetail) =>
    seen === null ? r.publishedAt >= startMs && r.publishedAt < endMs : !seen.has(r.reviewId);
  const items: NewReview[] = [];
  for (const campaign of inputs.campaigns) {
    for (const review of campaign.reviews?.reviews ?? []) {
      if (!isNew(review)) continue;
      items.push({
        reviewId: review.reviewId,
        campaignId: campaign.campaignId,
        ...named(campaign),
        asin: review.asin,
        title: titles.get(review.asin) ?? null,
        platform: review.platform,
        rating: review.rating,
        publishedAt: review.publishedAt,
      });
    }
  }
  return items.sort((a, b) => b.publishedAt - a.publishedAt || a.reviewId.localeCompare(b.reviewId));
}

const named = (c: { campaignName?: string }) =>
  c.campaignName === undefined ? {} : { campaignName: c.campaignName };

function arcProgress(inputs: DigestInputs, titles: ReadonlyMap<string, string>): ArcProgress[] {
  return inputs.campaigns.map((campaign) => {
    const reviews = campaign.reviews?.reviews ?? null;
    const count = reviews === null ? null : reviews.length;
    const invitesShort = count !== null && campaign.invites !== null && count > campaign.invites;
    return {
      campaignId: campaign.campaignId,
      ...named(campaign),
      asin: reviews?.[0]?.asin ?? null,
      title: titles.get(reviews?.[0]?.asin ?? '') ?? null,
      invites: campaign.invites,
      reviews: count,
      averageRating: reviews === null ? null : average(reviews.map((r) => r.rating)),
      ratePct:
        count === null || campaign.invites === null || campaign.invites === 0 || invitesShort
          ? null
          : (count / campaign.invites) * 100,
      invitesShort,
    };
  });
}

function sales(inputs: DigestInputs, titles: ReadonlyMap<string, string>): SalesSection {
  if (inputs.sales.status !== 'ok') return inputs.sales;
  return salesSection({
    rows: inputs.sales.rows,
    day: inputs.day,
    nowMs: inputs.nowMs,
    expectedPairs: inputs.expectedPairs,
    titles,
    previous: inputs.previous,
    fetchedFrom: inputs.sales.from,
  });
}

export function computeFigures(inputs: DigestInputs): DigestFigures {
  const titles = titlesOf(inputs);
  const salesFigures = sales(inputs, titles);
  const lines = bsrLines(inputs.books, inputs.day, inputs.timeZone);
  const keywords = { baseline: inputs.previous === null, ...keywordMoves(inputs.keywords, inputs.previous) };
  const items = newReviews(inputs, titles);
  const bsr = { books: lines, movers: bsrMovers(lines) };
  const { startMs, endMs } = localDayBounds(inputs.day, inputs.timeZone);
  const salesQuiet =
    salesFigures.status === 'off' ||
    (salesFigures.status === 'ok' &&
      salesFigures.movers.length === 0 &&
      salesFigures.revisions.length === 0 &&
      salesFigures.missingYesterday.length === 0);
  const quiet =
    salesQuiet &&
    bsr.movers.length === 0 &&
    keywords.movers.length + keywords.entered.length + keywords.left.length === 0 &&
    items.length === 0;
  return {
    workspace: inputs.workspace,
    timeZone: inputs.timeZone,
    day: inputs.day,
    dayLabel: dayLabel(inputs.day),
    dayHours: Math.round((endMs - startMs) / HOUR_MS),
    builtAtMs: inputs.nowMs,
    firstDigest: inputs.previous === null,
    sales: salesFigures,
    bsr,
    keywords,
    reviews: {
      since: inputs.previous === null ? 'digest_day' : 'last_digest',
      items,
      averageRating: average(items.map((r) => r.rating)),
      unpolled: inputs.campaigns.filter((c) => c.reviews === null).map((c) => c.campaignId),
    },
    arc: arcProgress(inputs, titles),
    ...(inputs.silenced === undefined ? {} : { silenced: inputs.silenced }),
    comps: compLines(inputs.books),
    sentiment: sentimentLines(inputs.books, inputs.previous),
    quiet,
  };
}

/**
 * What this digest leaves for the next one to the same recipient. Stored only after the send
 * succeeded. A failed sales fetch keeps the last digest's sales, so the next digest still finds
 * the revisions since the figures the recipient last saw.
 */
export function lastDigestOf(inputs: DigestInputs): LastDigest {
  const reviewIds = inputs.campaigns.flatMap((c) => (c.reviews?.reviews ?? []).map((r) => r.reviewId));
  const keptSales =
    inputs.sales.status === 'ok'
      ? { salesFrom: inputs.sales.from, salesTo: inputs.sales.to, sales: inputs.sales.rows }
      : {
          salesFrom: inputs.previous?.salesFrom ?? null,
          salesTo: inputs.previous?.salesTo ?? null,
          sales: inputs.previous?.sales ?? [],
        };
  // A campaign not polled this time keeps the ids the last digest knew, so they are not "new" later.
  const previousIds = inputs.previous?.reviewIds ?? [];
  const unpolled = inputs.campaigns.some((c) => c.reviews === null);
  // Likewise the keyword ranks of a book whose keyword snapshot is missing this time.
  const current = new Set(inputs.keywords.map((o) => `${o.asin}|${o.marketplace}`));
  const carriedRanks = (inputs.previous?.keywordRanks ?? []).filter(
    (r) => !current.has(`${r.asin}|${r.marketplace}`),
  );
  return {
    version: 1,
    day: inputs.day,
    builtAtMs: inputs.nowMs,
    ...keptSales,
    keywordRanks: [...keywordRanksOf(inputs.keywords), ...carriedRanks],
    reviewIds: unpolled ? [...new Set([...reviewIds, ...previousIds])] : reviewIds,
    sentiment: sentimentMemory(inputs.books, inputs.previous),
  };
}
