import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { type DesiredScheduler, type ReconcileReport, reconcileSchedulers } from '../app/schedulers.ts';
import type { Logger } from '../ops/logger.ts';
import type { PollJobData } from './processor.ts';

export type { ReconcileReport } from '../app/schedulers.ts';

/** One poll scheduler the plan wants: a target polled every `everyMs` real milliseconds. */
export interface DesiredSchedule {
  schedulerId: string;
  everyMs: number;
  /** Delay of a new scheduler's first run; later runs keep that phase, spreading equal cadences. */
  firstRunDelayMs?: number;
  /** A cadence set in the config: applied as written, without the hysteresis of planned ones. */
  exact?: boolean;
  data: PollJobData;
}

/** Scheduler ids become part of BullMQ job ids, which may not contain ":". */
export function schedulerIdFor(workspace: string, targetId: string): string {
  return `${workspace}.${targetId}`.replaceAll(':', '_');
}

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
