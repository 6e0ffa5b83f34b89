import type { ReviewDetail, ReviewSummary, ReviewsObservation } from '../model/observation.ts';
import type { MissingReview, ReviewTrack } from '../rule-state/shapes.ts';
import { DAY_MS } from '../util/time-units.ts';

/**
 * What the review rules remember between polls of a campaign: the reviews that are missing from
 * its answers. A review must be absent from this many complete answers (ok polls) in a row before
 * it is announced as removed, so one odd answer that slipped past the checks removes nothing.
 * Failed polls neither count nor reset the streak.
 */
export const REVIEW_REMOVED_AFTER_POLLS = 2;
/** How long a removed review is remembered, so that its return reads as a restore, not as new. */
export const REMOVED_REVIEW_KEPT_MS = 90 * DAY_MS;
/** At most this many removed reviews are remembered per campaign (the most recently removed). */
export const REMOVED_REVIEWS_KEPT = 5_000;

/** One poll's judgement of a campaign's review ids, shared by every review rule. */
export interface ReviewPass {
  /** Listed now, never seen before: a new review. */
  arrived: ReviewDetail[];
  /** Absent long enough, this poll: a removed review. */
  removed: MissingReview[];
  /** Listed again after being announced as removed: restored, never new. */
  restored: { review: ReviewDetail; removedAt: number }[];
  after: ReviewTrack;
}

const summary = (r: ReviewSummary): ReviewSummary => ({
  reviewId: r.reviewId,
  asin: r.asin,
  platform: r.platform,
  rating: r.rating,
  publishedAt: r.publishedAt,
});

export function trackReviews(
  prev: ReviewsObservation,
  next: ReviewsObservation,
  before: ReviewTrack | undefined,
  nowMs: number,
): ReviewPass {
  const tracked = before?.missing ?? new Map<string, MissingReview>();
  const pass: ReviewPass = { arrived: [], removed: [], restored: [], after: { missing: new Map() } };
  const present = new Set<string>();
  const known = new Set(prev.reviews.map((r) => r.reviewId));
  for (const review of next.reviews) {
    if (present.has(review.reviewId)) continue; // listed twice in one answer: one review
    present.add(review.reviewId);
    const gone = tracked.get(review.reviewId);
    if (gone !== undefined) {
      // Back before it was announced as removed: nothing happened, as far as anyone was told.
      if (gone.removedAt !== null) pass.restored.push({ review, removedAt: gone.removedAt });
    } else if (!known.has(review.reviewId)) pass.arrived.push(review);
  }
  const missing = (review: MissingReview): void => {
    if (review.removedAt === null && review.missing >= REVIEW_REMOVED_AFTER_POLLS) {
      review.removedAt = nowMs;
      pass.removed.push(review);
    }
    pass.after.missing.set(review.reviewId, review);
  };
  for (const review of prev.reviews) {
    if (present.has(review.reviewId) || tracked.has(review.reviewId)) continue;
    present.add(review.reviewId);
    missing({ ...summary(review), missing: 1, removedAt: null });
  }
  for (const [id, review] of tracked) {
    if (present.has(id)) continue;
    if (review.removedAt !== null && nowMs - review.removedAt >= REMOVED_REVIEW_KEPT_MS) continue;
    missing(review.removedAt === null ? { ...review, missing: review.missing + 1 } : review);
  }
  capRemembered(pass.after.missing);
  return pass;
}

/** Drops the longest-removed reviews past the cap; reviews not yet removed are always kept. */
function capRemembered(missing: Map<string, MissingReview>): void {
  const removed = [...missing.values()].filter((r) => r.removedAt !== null);
  if (removed.length <= REMOVED_REVIEWS_KEPT) return;
  removed.sort((a, b) => (b.removedAt ?? 0) - (a.removedAt ?? 0));
  for (const review of removed.slice(REMOVED_REVIEWS_KEPT)) missing.delete(review.reviewId);
}
