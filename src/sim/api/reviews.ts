import { badRequest, notFound } from '../errors.ts';
import { PLATFORMS, type Platform } from '../world/events.ts';
import { decodeCursor, encodeCursor, listingFingerprint } from './pagination.ts';
import { limitParam, Query, timestampParam } from './query.ts';
import type { ApiContext, ApiResult } from './types.ts';

function isPlatform(text: string): text is Platform {
  return (PLATFORMS as readonly string[]).includes(text);
}

/**
 * Reviews newest first with a keyset cursor (published_at, review_id of the last item): a review
 * arriving between two pages lands before the cursor and does not shift the pages after it.
 * `since` is inclusive.
 */
export function getReviews(ctx: ApiContext): ApiResult {
  const query = new Query(ctx.search, ['campaign_id', 'platform', 'since', 'limit', 'cursor']);
  const campaignId = query.one('campaign_id');
  if (campaignId !== undefined && ctx.world.catalogue.campaign(campaignId) === undefined) {
    throw notFound(`no ARC campaign ${campaignId}`);
  }
  const platform = query.one('platform');
  if (platform !== undefined && !isPlatform(platform)) {
    throw badRequest(`platform must be one of ${PLATFORMS.join(', ')}, got "${platform}"`);
  }
  const sinceMs = timestampParam(query, 'since');
  const limit = limitParam(query);
  const fingerprint = listingFingerprint('arc/reviews', query);
  const cursor = decodeCursor(query, fingerprint);

  const matching = ctx.world
    .reviews(ctx.nowMs)
    .filter(
      (review) =>
        (campaignId === undefined || review.campaign_id === campaignId) &&
        (platform === undefined || review.platform === platform) &&
        (sinceMs === undefined || Date.parse(review.published_at) >= sinceMs),
    );
  const after =
    cursor?.k === undefined || cursor.i === undefined
      ? matching
      : matching.filter(
          (review) =>
            review.published_at < (cursor.k ?? '') ||
            (review.published_at === cursor.k && review.review_id < (cursor.i ?? '')),
        );
  const data = after.slice(0, limit);
  const last = data[data.length - 1];
  const next =
    after.length > limit && last !== undefined
      ? encodeCursor(fingerprint, { k: last.published_at, i: last.review_id })
      : null;
  return { status: 200, body: { data, next_cursor: next } };
}
