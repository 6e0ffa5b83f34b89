import type { EventBody } from './control-schemas.ts';
import { badRequest, notFound } from './errors.ts';
import type { SimState } from './state.ts';
import { DAY, floorTo, isoSeconds, parseDate, SECOND } from './time.ts';
import { MAX_RANK } from './world/bsr.ts';
import type { Book } from './world/index.ts';
import { type Marketplace, parseAmount } from './world/market.ts';

function accountBook(state: SimState, asin: string, marketplace?: Marketplace): Book {
  const book = state.world.catalogue.accountBook(asin);
  if (book === undefined) throw notFound(`no account book with ASIN ${asin}`);
  if (marketplace !== undefined && !book.marketplaces.includes(marketplace)) {
    throw badRequest(`book ${asin} is sold only in ${book.marketplaces.join(', ')}, not ${marketplace}`);
  }
  return book;
}

function amountOf(name: string, text: string | undefined, marketplace: Marketplace): number | undefined {
  if (text === undefined) return undefined;
  const minor = parseAmount(text, marketplace);
  if (minor === undefined)
    throw badRequest(`${name}: "${text}" is not an amount in the currency of ${marketplace}`);
  return minor;
}

/** Records a scripted event at the current sim time; it shows in the next answer of its endpoints. */
export function applyEvent(state: SimState, event: EventBody): Record<string, unknown> {
  const nowMs = state.clock.now();
  const { events } = state.world;
  switch (event.type) {
    case 'keyword_rank': {
      accountBook(state, event.asin, event.marketplace);
      events.setKeywordRank(event.asin, event.marketplace, event.keyword, event.rank, nowMs);
      return { ok: true, applied_at: new Date(nowMs).toISOString() };
    }
    case 'bsr': {
      accountBook(state, event.asin, event.marketplace);
      if (event.rank !== null && event.rank > MAX_RANK) throw badRequest(`rank: at most ${MAX_RANK}`);
      events.setBsr(event.asin, event.marketplace, event.rank, nowMs);
      return { ok: true, applied_at: new Date(nowMs).toISOString() };
    }
    case 'review': {
      const campaign = state.world.catalogue.campaign(event.campaign_id);
      if (campaign === undefined) throw notFound(`no ARC campaign ${event.campaign_id}`);
      const count = events.scriptedReviews().length;
      const reviewId = `rev_${state.world.rng.hex(12, 'scripted-review', count)}`;
      const publishedMs = floorTo(nowMs, SECOND);
      events.addReview({
        publishedMs,
        vanishMs: undefined,
        review: {
          review_id: reviewId,
          campaign_id: campaign.campaignId,
          asin: event.asin ?? campaign.asin,
          platform: event.platform,
          rating: event.rating,
          title: event.title ?? null,
          body: event.body,
          reviewer: event.reviewer,
          url: null,
          published_at: isoSeconds(publishedMs),
        },
      });
      return { ok: true, review_id: reviewId };
    }
    case 'remove_review': {
      if (!state.world.reviewExists(event.review_id, nowMs)) throw notFound(`no review ${event.review_id}`);
      events.removeReview(event.review_id, nowMs);
      return { ok: true };
    }
    case 'comp_bsr': {
      const book = accountBook(state, event.asin, event.marketplace);
      if (!book.comps.includes(event.comp_asin)) {
        throw badRequest(`comp_asin: ${event.comp_asin} is not a comp title of ${event.asin}`);
      }
      if (event.rank !== null && event.rank > MAX_RANK) throw badRequest(`rank: at most ${MAX_RANK}`);
      events.setCompBsr(event.asin, event.marketplace, event.comp_asin, event.rank, nowMs);
      return { ok: true, applied_at: new Date(nowMs).toISOString() };
    }
    case 'comp_titles': {
      accountBook(state, event.asin, event.marketplace);
      events.setCompListing(event.asin, event.marketplace, event.listed, nowMs);
      return { ok: true, applied_at: new Date(nowMs).toISOString() };
    }
    case 'sentiment': {
      accountBook(state, event.asin);
      if ((event.positive ?? 0) + (event.negative ?? 0) > 1) {
        throw badRequest('positive + negative: at most 1 together');
      }
      events.setSentiment(event.asin, {
        at: nowMs,
        averageRating: event.average_rating,
        positive: event.positive,
        negative: event.negative,
      });
      return { ok: true, applied_at: new Date(nowMs).toISOString() };
    }
    case 'sales_revision': {
      accountBook(state, event.asin, event.marketplace);
      const dateMs = parseDate(event.date);
      if (dateMs === undefined) throw badRequest(`date: "${event.date}" is not a calendar date`);
      if (dateMs > floorTo(nowMs, DAY))
        throw badRequest(`date: ${event.date} is in the future of the sim clock`);
      const revision = {
        at: nowMs,
        royaltiesMinor: amountOf('royalties', event.royalties, event.marketplace),
        units: event.units,
        adSpendMinor: amountOf('ad_spend', event.ad_spend, event.marketplace),
      };
      if (
        revision.royaltiesMinor === undefined &&
        revision.units === undefined &&
        revision.adSpendMinor === undefined
      ) {
        throw badRequest('a sales_revision needs at least one of royalties, units, ad_spend');
      }
      events.reviseSales(event.asin, event.marketplace, dateMs, revision);
      return { ok: true };
    }
  }
}
