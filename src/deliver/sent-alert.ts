import type { Queue } from 'bullmq';
import type { Alert } from '../model/alert.ts';
import { type DeliverQueueData, type DeliveryJobData, deliveryJobId } from './enqueue.ts';

/**
 * The alert a fingerprint names, read from its delivery jobs (kept as long as dedup holds, so any
 * alert someone was sent can still be found). Undefined when no channel had it.
 */
export async function findAlert(
  queue: Queue<DeliverQueueData>,
  channelIds: readonly string[],
  fingerprint: string,
): Promise<Alert | undefined> {
  for (const channelId of channelIds) {
    const job = await queue.getJob(deliveryJobId(fingerprint, channelId));
    const data = job?.data as DeliveryJobData | undefined;
    if (data?.alert?.fingerprint === fingerprint) return data.alert;
  }
  return undefined;
}
