import type { Rng } from '../prng.ts';
import { floorTo, HOUR, isoSeconds, SECOND } from '../time.ts';
import type { Campaign } from './catalogue.ts';
import { PLATFORMS, type Platform, type TimedReview } from './events.ts';
import { FIRST_NAMES, LAST_NAMES, REVIEW_DETAILS, REVIEW_OPENINGS, REVIEW_TITLES } from './words.ts';

/**
 * ARC reviews arrive in 4-hour slots: each slot of a campaign holds at most one review, with a
 * chance that is high in the first days after launch and settles to about one review a day, so
 * a simulated month keeps producing them. A few reviews vanish some hours after publication.
 */
const SLOT = 4 * HOUR;
const VANISH_SHARE = 0.04;
const RATING_WEIGHTS: readonly (readonly [rating: number, upTo: number])[] = [
  [1, 0.05],
  [2, 0.12],
  [3, 0.27],
  [4, 0.6],
  [5, 1],
];

function ratingFor(u: number): number {
  for (const [rating, upTo] of RATING_WEIGHTS) if (u < upTo) return rating;
  return 5;
}

function urlFor(rng: Rng, platform: Platform, id: string): string | null {
  if (rng.chance(0.2, 'review-url-missing', id)) return null;
  if (platform === 'amazon')
    return `https://www.amazon.com/gp/customer-reviews/R${rng.hex(12, 'url', id).toUpperCase()}`;
  if (platform === 'goodreads')
    return `https://www.goodreads.com/review/show/${rng.int(1e8, 9e8, 'url', id)}`;
  return `https://www.audible.com/review/${rng.hex(10, 'url', id)}`;
}

function generatedReview(rng: Rng, campaign: Campaign, slot: number): TimedReview | undefined {
  const days = (slot * SLOT) / (24 * HOUR);
  const chance = 0.18 + 0.5 * Math.exp(-days / 10);
  if (!rng.chance(chance, 'review', campaign.campaignId, slot)) return undefined;
  const id = `rev_${rng.hex(12, 'review-id', campaign.campaignId, slot)}`;
  const publishedMs = floorTo(campaign.startMs + (slot + rng.unit('review-at', id)) * SLOT, SECOND);
  const platform = rng.pick(PLATFORMS, 'review-platform', id);
  const rating = ratingFor(rng.unit('review-rating', id));
  const vanishes = rng.chance(VANISH_SHARE, 'review-vanish', id);
  return {
    publishedMs,
    vanishMs: vanishes ? publishedMs + rng.int(6, 96, 'review-vanish-after', id) * HOUR : undefined,
    review: {
      review_id: id,
      campaign_id: campaign.campaignId,
      asin: campaign.asin,
      platform,
      rating,
      title: rng.chance(0.3, 'review-untitled', id) ? null : rng.pick(REVIEW_TITLES, 'review-title', id),
      body: `${rng.pick(REVIEW_OPENINGS, 'review-open', id)} ${rng.pick(REVIEW_DETAILS, 'review-detail', id)}`,
      reviewer: `${rng.pick(FIRST_NAMES, 'reviewer', id)} ${rng.pick(LAST_NAMES, 'reviewer-last', id).slice(0, 1)}.`,
      url: urlFor(rng, platform, id),
      published_at: isoSeconds(publishedMs),
    },
  };
}

/**
 * Generated reviews per campaign. A slot's review never changes, so slots are generated once and
 * kept (a few reviews a day per campaign): listing reviews then costs a filter, not a rebuild.
 */
export class ReviewFeed {
  private readonly generated = new Map<string, { slots: number; reviews: TimedReview[] }>();

  constructor(private readonly rng: Rng) {}

  /** Every generated review of the campaign published by `nowMs`, including ones that vanished since. */
  upTo(campaign: Campaign, nowMs: number): TimedReview[] {
    const lastSlot = Math.floor((nowMs - campaign.startMs) / SLOT);
    const entry = this.generated.get(campaign.campaignId) ?? { slots: 0, reviews: [] };
    for (let slot = entry.slots; slot <= lastSlot; slot++) {
      const review = generatedReview(this.rng, campaign, slot);
      if (review !== undefined) entry.reviews.push(review);
    }
    entry.slots = Math.max(entry.slots, lastSlot + 1);
    this.generated.set(campaign.campaignId, entry);
    return entry.reviews.filter((review) => review.publishedMs <= nowMs);
  }
}
