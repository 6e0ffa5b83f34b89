/**
 * Which invite answers this installation has already counted, per workspace and campaign. The API
 * answers a repeated Idempotency-Key with its first answer, "invited" statuses included, and says
 * nothing about it being a repeat: without this record a re-run would count the same readers
 * again in the digest's ARC progress and report them as invited a second time.
 */

import type { Cluster, Redis } from 'ioredis';
import type { ArcInviteResult } from '../api/index.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { DAY_MS } from '../util/time-units.ts';
import type { Batch } from './batches.ts';
import { recordInviteIds, recordInvites } from './invite-counts.ts';
import { answeredBatchesKey } from './keys.ts';

/** Campaigns run for months; the record only has to outlive the API's memory of a key. */
const LEDGER_TTL_MS = 400 * DAY_MS;

export { answeredBatchesKey };

export class InviteLedger {
  private readonly key: string;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: KeyPrefix,
    private readonly workspace: string,
    private readonly campaignId: string,
  ) {
    this.key = answeredBatchesKey(prefix, workspace, campaignId);
  }

  /**
   * Notes the batch's answer; true when it is the first time, and then its newly invited readers
   * are added to the campaign's count. Marked before counted: a crash in between loses a count
   * rather than doubling one.
   */
  async record(batch: Batch, answer: ArcInviteResult): Promise<boolean> {
    const added = await this.redis.sadd(this.key, batch.idempotencyKey);
    await this.redis.pexpire(this.key, LEDGER_TTL_MS);
    if (added === 0) return false;
    const invited = answer.data.filter((item) => item.status === 'invited').length;
    await recordInvites(this.redis, this.prefix, this.workspace, this.campaignId, invited);
    const ids = answer.data.map((item) => item.invite_id);
    await recordInviteIds(this.redis, this.prefix, this.workspace, this.campaignId, ids);
    return true;
  }
}
