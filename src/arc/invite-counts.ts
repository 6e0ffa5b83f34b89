import type { Cluster, Redis } from 'ioredis';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { arcInviteIdsKey, arcInvitesKey } from './keys.ts';

/** Notes the invite ids of one answer (a set: an answer seen twice counts once). */
export async function recordInviteIds(
  redis: Redis | Cluster,
  prefix: KeyPrefix,
  workspace: string,
  campaignId: string,
  inviteIds: readonly string[],
): Promise<void> {
  if (inviteIds.length === 0) return;
  await redis.sadd(arcInviteIdsKey(prefix, workspace, campaignId), ...inviteIds);
}

/** Adds `count` newly invited readers (the API's `status: "invited"` answers); returns the total. */
export async function recordInvites(
  redis: Redis | Cluster,
  prefix: KeyPrefix,
  workspace: string,
  campaignId: string,
  count: number,
): Promise<number> {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`invite count must be a whole number ≥ 0, got ${count}`);
  }
  return redis.incrby(arcInvitesKey(prefix, workspace, campaignId), count);
}

/**
 * Readers invited so far, or null when `arc invite` never recorded any for the campaign: the
 * larger of the readers shelfwatch invited and the API's invite ids it saw (counters written
 * before the ids were kept have no ids).
 */
export async function readInvites(
  redis: Redis | Cluster,
  prefix: KeyPrefix,
  workspace: string,
  campaignId: string,
): Promise<number | null> {
  const [raw, ids] = await Promise.all([
    redis.get(arcInvitesKey(prefix, workspace, campaignId)),
    redis.scard(arcInviteIdsKey(prefix, workspace, campaignId)),
  ]);
  const value = raw === null ? null : Number(raw);
  const counted = value !== null && Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (counted === null && ids === 0) return null;
  return Math.max(counted ?? 0, ids);
}
