/**
 * The dead-letter queue: flush jobs that failed for good stay in the deliver queue's failed set
 * (kept as long as finished jobs, see `jobRetention`), and their alerts stay in the group's
 * in-flight set. Listing, retrying and purging work on those two, nothing else.
 */
import type { Job, Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { ChannelHealth } from './channel-health.ts';
import type { DeliverQueueData, FlushJobData } from './enqueue.ts';
import type { GroupBuffer } from './groups.ts';
import { keepForDeadLetter } from './processor.ts';

export interface DeadLetterDeps {
  queue: Queue<DeliverQueueData>;
  redis: Redis | Cluster;
  groups: GroupBuffer;
  channelHealth: ChannelHealth;
  /** Channels in the config: a dead letter of a channel that left it cannot be delivered. */
  channels: readonly string[];
}

export interface DeadLetterFilter {
  channelId?: string;
}

export interface DeadLetter {
  jobId: string;
  channelId: string;
  /** `workspace|kind|severity|low-star` of the group, as the flush job recorded it. */
  groupKey: string;
  groupHash: string;
  /** Alerts still waiting in the group's in-flight set; 0 when a later flush of the group sent them. */
  alertCount: number;
  titles: string[];
  failedReason: string;
  attempts: number;
  /** Real time (ms) when it failed for the last time; null when BullMQ did not record it. */
  failedAtMs: number | null;
}

export interface RetryReport {
  retried: DeadLetter[];
  /** Channels that were disabled and are enabled again, so the retried jobs can go through. */
  enabled: string[];
  /** Dead letters left alone because their channel is no longer configured (purge them). */
  skipped: DeadLetter[];
}

type FlushJob = Job<FlushJobData & { deferrals?: number }>;

function isFlush(job: Job<DeliverQueueData>): job is FlushJob {
  return job.name === 'flush' && typeof (job.data as Partial<FlushJobData>).groupHash === 'string';
}

/** The failed flush jobs, oldest failure first. Failed admissions are not dead letters: they hold no alerts. */
async function failedFlushJobs(
  queue: Queue<DeliverQueueData>,
  filter: DeadLetterFilter,
): Promise<FlushJob[]> {
  const failed = await queue.getFailed(0, -1);
  return failed
    .filter(isFlush)
    .filter((job) => filter.channelId === undefined || job.data.channelId === filter.channelId)
    .sort((a, b) => (a.finishedOn ?? 0) - (b.finishedOn ?? 0));
}

async function describe(groups: GroupBuffer, job: FlushJob): Promise<DeadLetter> {
  // A dead letter from a version that left a failed flush's alerts in the group's buffer gets
  // them moved to its in-flight set here (idempotent), so it shows them and a purge removes them.
  await keepForDeadLetter({ groups }, job.data, job.id ?? '');
  const alerts = await groups.inflight(job.data.groupHash, job.id ?? '');
  alerts.sort((a, b) => a.observedAt - b.observedAt);
  return {
    jobId: job.id ?? '',
    channelId: job.data.channelId,
    groupKey: job.data.groupKey,
    groupHash: job.data.groupHash,
    alertCount: alerts.length,
    titles: alerts.map((alert) => alert.title),
    failedReason: job.failedReason ?? '',
    attempts: job.attemptsMade,
    failedAtMs: job.finishedOn ?? null,
  };
}

export async function listDeadLetters(
  deps: Pick<DeadLetterDeps, 'queue' | 'groups'>,
  filter: DeadLetterFilter = {},
): Promise<DeadLetter[]> {
  const jobs = await failedFlushJobs(deps.queue, filter);
  return Promise.all(jobs.map((job) => describe(deps.groups, job)));
}

/** Dead letters per channel, without reading their alerts: for `status`. */
export async function countDeadLetters(queue: Queue<DeliverQueueData>): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const job of await failedFlushJobs(queue, {})) {
    counts.set(job.data.channelId, (counts.get(job.data.channelId) ?? 0) + 1);
  }
  return counts;
}

/**
 * Puts the dead letters back in the queue with a fresh set of attempts. A disabled channel is
 * enabled first (its jobs would fail at once otherwise): retrying is how an operator says "fixed".
 * Naming a channel enables it even when it has no dead letters left, for the same reason.
 */
export async function retryDeadLetters(
  deps: DeadLetterDeps,
  filter: DeadLetterFilter = {},
): Promise<RetryReport> {
  const jobs = await failedFlushJobs(deps.queue, filter);
  const report: RetryReport = { retried: [], enabled: [], skipped: [] };
  const channels = new Set(jobs.map((job) => job.data.channelId));
  if (filter.channelId !== undefined) channels.add(filter.channelId);
  for (const channelId of [...channels].sort()) {
    if (!deps.channels.includes(channelId)) continue;
    if ((await deps.channelHealth.disabledReason(channelId)) === null) continue;
    await deps.channelHealth.enable(channelId);
    report.enabled.push(channelId);
  }
  for (const job of jobs) {
    const letter = await describe(deps.groups, job);
    if (!deps.channels.includes(job.data.channelId)) {
      report.skipped.push(letter);
      continue;
    }
    // A flush that failed after too many deferrals would fail again at once with the old count.
    const { deferrals: _dropped, ...data } = job.data;
    await job.updateData(data);
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    report.retried.push(letter);
  }
  return report;
}

/** Removes the dead letters and their in-flight alerts; returns what was removed. */
export async function purgeDeadLetters(
  deps: Pick<DeadLetterDeps, 'queue' | 'groups' | 'redis'>,
  filter: DeadLetterFilter = {},
): Promise<DeadLetter[]> {
  const jobs = await failedFlushJobs(deps.queue, filter);
  const removed: DeadLetter[] = [];
  for (const job of jobs) {
    removed.push(await describe(deps.groups, job));
    await job.remove();
    await deps.groups.confirm(job.data.groupHash, job.id ?? '');
  }
  return removed;
}
