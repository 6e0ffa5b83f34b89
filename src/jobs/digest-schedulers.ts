import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { DesiredDigestSchedule, DigestJobData } from '../digest/schedule.ts';
import type { Logger } from '../ops/logger.ts';
import { type ReconcileReport, reconcileSchedulers } from './schedulers.ts';

export type DigestReconcileReport = ReconcileReport;

/** Completed digest jobs are kept a while for `status`; failed ones longer, to look into. */
export const DIGEST_JOB_OPTIONS = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 60_000 },
  removeOnComplete: { age: 14 * 86_400, count: 1_000 },
  removeOnFail: { age: 30 * 86_400, count: 5_000 },
} as const;

/**
 * Makes the digest queue's schedulers match the config (one process at a time, see
 * `reconcileSchedulers`): new recipients get one, a changed time or zone is upserted, and
 * recipients that left the config lose theirs.
 */
export function reconcileDigestSchedulers(options: {
  queue: Queue<DigestJobData>;
  redis: Redis | Cluster;
  lockKey: string;
  desired: readonly DesiredDigestSchedule[];
  logger: Logger;
  lockTtlMs?: number;
  inForce?: () => Promise<boolean>;
}): Promise<DigestReconcileReport> {
  return reconcileSchedulers<DigestJobData>({
    ...options,
    desired: options.desired.map((want) => ({
      schedulerId: want.schedulerId,
      repeat: { pattern: want.pattern, tz: want.tz },
      data: want.data,
    })),
    jobName: 'digest',
    jobOptions: DIGEST_JOB_OPTIONS,
  });
}
