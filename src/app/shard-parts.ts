import type { Queue } from 'bullmq';
import type { DeliverQueueData } from '../deliver/enqueue.ts';
import type { DeliveryDeps } from '../deliver/processor.ts';
import { idleReport, type ReconcileReport } from '../jobs/poll-schedulers.ts';
import type { PollDeps, PollJobData } from '../poll/processor.ts';

/**
 * One shard of a deployment (config/shards.ts): its prefix, the configured workspaces on it, its
 * poll and delivery queues (BullMQ's keys under the shard's hash tag: one queue per tag, the Redis
 * Cluster pattern of BullMQ's docs) and the dependencies its jobs run with. The digest queue and
 * the deployment's own keys (silences, channel state, the alert log, locks) stay on the home shard.
 */
export interface ShardParts {
  index: number;
  prefix: string;
  workspaces: string[];
  pollQueue: Queue<PollJobData>;
  deliverQueue: Queue<DeliverQueueData>;
  pollDeps: PollDeps;
  deliveryDeps: DeliveryDeps;
}

/** The shards' reconcile reports as one; the first shard that failed fails it, after all ran. */
export function mergeReports(settled: PromiseSettledResult<ReconcileReport>[]): ReconcileReport {
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  const total = idleReport();
  for (const result of settled) {
    if (result.status !== 'fulfilled') continue;
    const report = result.value;
    total.created += report.created;
    total.updated += report.updated;
    total.removed += report.removed;
    total.unchanged += report.unchanged;
    total.ranHere ||= report.ranHere;
    total.deferred += report.deferred;
    if (report.retryAtMs !== null)
      total.retryAtMs = Math.min(total.retryAtMs ?? report.retryAtMs, report.retryAtMs);
  }
  return total;
}
