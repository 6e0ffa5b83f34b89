/**
 * Every Redis key of the digest, under the run's prefix:
 *
 *   <prefix>:digest:last|sent|lock:<ws>:<channel>[:<date>]  what was sent to a recipient (state.ts)
 *   <prefix>:arc:invites:<ws>:<campaign>                    readers invited (arc-invites.ts)
 *   <prefix>:arc:invite-ids:<ws>:<campaign>                 the API's invite ids seen
 *
 * Stored data is read back by these exact strings: do not change them.
 */

export function digestStateKey(
  prefix: string,
  kind: 'last' | 'sent' | 'lock',
  workspace: string,
  channel: string,
  date?: string,
): string {
  const base = `${prefix}:digest:${kind}:${workspace}:${channel}`;
  return date === undefined ? base : `${base}:${date}`;
}

/**
 * Readers invited per ARC campaign, counted by `arc invite` and read by the digest (invites vs
 * reviews). A counter that was never written means "not recorded", which the digest shows as
 * such, never as 0 invites.
 */
export function arcInvitesKey(prefix: string, workspace: string, campaignId: string): string {
  return `${prefix}:arc:invites:${workspace}:${campaignId}`;
}

/**
 * The API's invite ids seen in `arc invite` answers, both `invited` and `already_invited`: a reader
 * the publisher invited elsewhere is answered `already_invited` with the API's invite id, and
 * counts as invited for the campaign's review rate although shelfwatch did not send the invite.
 */
export function arcInviteIdsKey(prefix: string, workspace: string, campaignId: string): string {
  return `${prefix}:arc:invite-ids:${workspace}:${campaignId}`;
}
