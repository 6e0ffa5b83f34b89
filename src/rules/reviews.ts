import type { AlertSubject } from '../model/alert.ts';
import type { BookObservation, ReviewDetail, ReviewsObservation } from '../model/observation.ts';
import type { ReviewCountDownRule, ReviewNewRule, ReviewRemovedRule } from './config.ts';
import { groupDigits, quote, where } from './format.ts';
import { appliesTo, emit, type Scope } from './scope.ts';

/**
 * Review events. They carry no condition state: the diff of review ids between two ok polls is
 * the event, and the review id is the fingerprint's observation, so a review that disappears and
 * comes back is not announced as new twice. Review text is untrusted and goes into `facts`
 * verbatim; channels escape it and may hide it when `lowStar` is set. Titles never contain it.
 */

const PLATFORM: Record<ReviewDetail['platform'], string> = {
  amazon: 'Amazon',
  audible: 'Audible',
  goodreads: 'Goodreads',
};

function reviewSubject(obs: ReviewsObservation, review: ReviewDetail): AlertSubject {
  return { asin: review.asin, campaignId: obs.campaignId, reviewId: review.reviewId };
}

function reviewFacts(obs: ReviewsObservation, review: ReviewDetail) {
  return {
    campaignId: obs.campaignId,
    asin: review.asin,
    reviewId: review.reviewId,
    platform: review.platform,
    rating: review.rating,
    reviewer: review.reviewer,
    reviewTitle: review.title,
    body: review.body,
    url: review.url,
    publishedAt: review.publishedAt,
  };
}

const stars = (rating: number): string => `${rating}★`;
/** review_removed has no lowStarAt of its own: it uses review_new's default. */
const LOW_STAR_DEFAULT = 2;

export function evaluateReviewNew(
  scope: Scope,
  rule: ReviewNewRule,
  prev: ReviewsObservation,
  next: ReviewsObservation,
): void {
  const seen = new Set(prev.reviews.map((r) => r.reviewId));
  for (const review of next.reviews) {
    if (seen.has(review.reviewId)) continue;
    seen.add(review.reviewId); // a review listed twice in one answer is still one event
    if (!appliesTo(rule, review.asin, null)) continue;
    if (rule.platforms !== undefined && !rule.platforms.includes(review.platform)) continue;
    if (rule.minRating !== undefined && review.rating < rule.minRating) continue;
    if (rule.maxRating !== undefined && review.rating > rule.maxRating) continue;
    emit(scope, rule, {
      kind: 'review_new',
      subject: reviewSubject(next, review),
      observation: review.reviewId,
      title: `New ${stars(review.rating)} ${PLATFORM[review.platform]} review of ${review.asin} (campaign ${next.campaignId})`,
      facts: { ...reviewFacts(next, review), lowStar: review.rating <= rule.lowStarAt },
      observedAt: next.observedAt,
    });
  }
}

export function evaluateReviewRemoved(
  scope: Scope,
  rule: ReviewRemovedRule,
  prev: ReviewsObservation,
  next: ReviewsObservation,
): void {
  const present = new Set(next.reviews.map((r) => r.reviewId));
  for (const review of prev.reviews) {
    if (present.has(review.reviewId)) continue;
    present.add(review.reviewId);
    if (!appliesTo(rule, review.asin, null)) continue;
    if (rule.platforms !== undefined && !rule.platforms.includes(review.platform)) continue;
    emit(scope, rule, {
      kind: 'review_removed',
      subject: reviewSubject(next, review),
      observation: review.reviewId,
      title: `A ${stars(review.rating)} ${PLATFORM[review.platform]} review of ${review.asin} was removed (campaign ${next.campaignId})`,
      // Snapshots keep no review text, so there is none to hide; the flag keeps channels consistent.
      facts: { ...reviewFacts(next, review), lowStar: review.rating <= LOW_STAR_DEFAULT },
      observedAt: next.observedAt,
    });
  }
}

export function evaluateReviewCountDown(
  scope: Scope,
  rule: ReviewCountDownRule,
  prev: BookObservation,
  next: BookObservation,
): void {
  if (!appliesTo(rule, next.asin, next.marketplace)) return;
  const before = prev.reviewCount;
  const after = next.reviewCount;
  // An unknown count is not zero: nothing to compare.
  if (before === null || after === null || before - after < rule.minDrop) return;
  emit(scope, rule, {
    kind: 'review_count_down',
    subject: { asin: next.asin, marketplace: next.marketplace },
    // The previous committed poll plus the new count: stable across a re-run of this poll.
    observation: `${prev.observedAt}:${before}->${after}`,
    title: `Review count of ${quote(next.title)} went down from ${groupDigits(before)} to ${groupDigits(after)} ${where(next.asin, next.marketplace)}`,
    facts: {
      asin: next.asin,
      marketplace: next.marketplace,
      bookTitle: next.title,
      before,
      after,
      delta: after - before,
      averageRating: next.averageRating,
    },
    observedAt: next.observedAt,
  });
}
