import type { ReviewPlatform } from '../model/observation.ts';
import type { ByteReader, ByteWriter } from '../snapshot/bytes.ts';
import { RuleStateDecodeError } from './legacy.ts';
import type { MissingReview, ReviewTrack } from './shapes.ts';

/**
 * The missing reviews of a campaign in the bytes of `codec.ts` (version 2):
 *   uvarint count, then per review: str id, str asin, u8 platform, u8 rating,
 *   num publishedAt, uvarint missing, num removedAt (null until removed)
 */

const PLATFORMS: readonly ReviewPlatform[] = ['amazon', 'audible', 'goodreads'];

export function writeReviewTrack(w: ByteWriter, track: ReviewTrack): void {
  w.uvarint(track.missing.size);
  for (const review of track.missing.values()) {
    const platform = PLATFORMS.indexOf(review.platform);
    w.str(review.reviewId);
    w.str(review.asin);
    w.u8(platform < 0 ? 255 : platform);
    w.u8(review.rating);
    w.num(review.publishedAt);
    w.uvarint(review.missing);
    w.num(review.removedAt);
  }
}

export function readReviewTrack(r: ByteReader): ReviewTrack {
  const count = r.count(8);
  const missing = new Map<string, MissingReview>();
  for (let k = 0; k < count; k++) {
    const reviewId = r.str();
    const asin = r.str();
    const platform = PLATFORMS[r.u8()];
    const rating = r.u8();
    const publishedAt = r.reqNum('publishedAt');
    const times = r.uvarint();
    const removedAt = r.num();
    if (platform === undefined) throw new RuleStateDecodeError(`missing review ${reviewId}: bad platform`);
    if (missing.has(reviewId)) throw new RuleStateDecodeError(`missing review ${reviewId} listed twice`);
    missing.set(reviewId, { reviewId, asin, platform, rating, publishedAt, missing: times, removedAt });
  }
  return { missing };
}
