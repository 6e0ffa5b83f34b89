import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.ts';
import type { PollJobData } from '../poll/processor.ts';
import type { DesiredSchedule } from '../poll/schedule.ts';
import { type DesiredScheduler, type ReconcileReport, reconcileSchedulers } from './schedulers.ts';

export { idleReport, type ReconcileReport } from './schedulers.ts';

/** Poll jobs are cheap to keep for a while and useful in `status`; failures are kept longer. */
const POLL_JOB_OPTIONS = { removeOnComplete: { count: 1_000 }, removeOnFail: { count: 5_000 }, attempts: 3 };

/** Makes the poll queue's schedulers match the plan (see `reconcileSchedulers`). */
export function reconcilePollSchedulers(options: {
  queue: Queue<PollJobData>;
  redis: Redis | Cluster;
  lockKey: string;
  desired: readonly DesiredSchedule[];
  logger: Logger;
  lockTtlMs?: number;
  inForce?: () => Promise<boolean>;
}): Promise<ReconcileReport> {
  const desired: DesiredScheduler<PollJobData>[] = options.desired.map((want) => ({
    schedulerId: want.schedulerId,
    repeat: {
      every: want.everyMs,
      ...(want.firstRunDelayMs === undefined ? {} : { firstRunDelayMs: want.firstRunDelayMs }),
      ...(want.exact === true ? { exact: true } : {}),
    },
    data: want.data,
  }));
  return reconcileSchedulers<PollJobData>({
    ...options,
    desired,
    jobName: 'poll',
    jobOptions: POLL_JOB_OPTIONS,
  });
}
