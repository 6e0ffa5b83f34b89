import { type KeyPrefix, keyPart, prefixOf } from '../util/redis-keys.ts';

/**
 * Every Redis key of the ARC room, under the run's prefix:
 *
 *   <prefix>:arc:answered:<ws>:<campaign>    the invite batches the API answered (ledger.ts)
 *   <prefix>:arc:invites:<ws>:<campaign>     readers invited (invite-counts.ts)
 *   <prefix>:arc:invite-ids:<ws>:<campaign>  the API's invite ids seen (invite-counts.ts)
 *
 * Stored data is read back by these exact strings: do not change them.
 */
export function answeredBatchesKey(prefix: KeyPrefix, workspace: string, campaignId: string): string {
  return `${prefixOf(prefix, workspace)}:arc:answered:${keyPart(workspace)}:${campaignId}`;
}

/**
 * Readers invited per ARC campaign, counted by `arc invite` and read by the digest (invites vs
 * reviews). A counter that was never written means "not recorded", which the digest shows as
 * such, never as 0 invites.
 */
export function arcInvitesKey(prefix: KeyPrefix, workspace: string, campaignId: string): string {
  return `${prefixOf(prefix, workspace)}:arc:invites:${keyPart(workspace)}:${campaignId}`;
}

/**
 * The API's invite ids seen in `arc invite` answers, both `invited` and `already_invited`: a reader
 * the publisher invited elsewhere is answered `already_invited` with the API's invite id, and
 * counts as invited for the campaign's review rate although shelfwatch did not send the invite.
 */
export function arcInviteIdsKey(prefix: KeyPrefix, workspace: string, campaignId: string): string {
  return `${prefixOf(prefix, workspace)}:arc:invite-ids:${keyPart(workspace)}:${campaignId}`;
}

/** SCAN patterns of every ARC key of a workspace: to move it to another shard. */
export function arcKeyPatterns(prefix: string, workspace: string): string[] {
  return ['answered', 'invites', 'invite-ids'].map((kind) => `${prefix}:arc:${kind}:${keyPart(workspace)}:*`);
}
