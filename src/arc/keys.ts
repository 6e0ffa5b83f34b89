/**
 * The ARC room's Redis key, under the run's prefix: the invite batches the API answered, per
 * campaign (ledger.ts). Stored data is read back by this exact string: do not change it.
 */
export function answeredBatchesKey(prefix: string, workspace: string, campaignId: string): string {
  return `${prefix}:arc:answered:${workspace}:${campaignId}`;
}
