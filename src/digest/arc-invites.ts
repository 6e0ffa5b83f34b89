import type { Cluster, Redis } from 'ioredis';

/**
 * Readers invited per ARC campaign, counted by `arc invite` and read by the digest (invites vs
 * reviews). A counter that was never written means "not recorded", which the digest shows as
 * such, never as 0 invites.
 */
export function arcInvitesKey(prefix: string, workspace: string, campaignId: string): string {
  return `${prefix}:arc:invites:${workspace}:${campaignId}`;
}

/** Adds `count` newly invited readers (the API's `status: "invited"` answers); returns the total. */
export async function recordInvites(
  redis: Redis | Cluster,
  prefix: string,
  workspace: string,
  campaignId: string,
  count: number,
): Promise<number> {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`invite count must be a whole number ≥ 0, got ${count}`);
  }
  return redis.incrby(arcInvitesKey(prefix, workspace, campaignId), count);
}

/** Readers invited so far, or null when `arc invite` never recorded any for the campaign. */
export async function readInvites(
  redis: Redis | Cluster,
  prefix: string,
  workspace: string,
  campaignId: string,
): Promise<number | null> {
  const raw = await redis.get(arcInvitesKey(prefix, workspace, campaignId));
  if (raw === null) return null;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}
