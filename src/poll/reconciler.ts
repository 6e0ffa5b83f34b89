import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.ts';
import type { PollJobData } from './processor.ts';

/** One job scheduler the config wants: a target polled every `everyMs` real milliseconds. */
export interface DesiredSchedule {
  schedulerId: string;
  everyMs: number;
  /** Delay of a new scheduler's first run; later runs keep that phase, spreading equal cadences. */
  firstRunDelayMs?: number;
  data: PollJobData;
}

export interface ReconcileReport {
  created: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** False when another process held the lock: it reconciles, this one does nothing. */
  ranHere: boolean;
}

/** Scheduler ids become part of BullMQ job ids, which may not contain ":". */
export function schedulerIdFor(workspace: string, targetId: string): string {
  return `${workspace}.${targetId}`.replaceAll(':', '_');
}

const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * Makes the poll queue's job schedulers match the config. Upserting from every replica at boot has
 * had race bugs in BullMQ, so one process at a time does it behind a Redis lock, diffing
 * `getJobSchedulers()` against what is wanted: new ones created, changed cadences upserted, and
 * schedulers of targets that left the config removed.
 */
export async function reconcileSchedulers(options: {
  queue: Queue<PollJobData>;
  redis: Redis | Cluster;
  lockKey: string;
  desired: readonly DesiredSchedule[];
  logger: Logger;
  lockTtlMs?: number;
}): Promise<ReconcileReport> {
  const { queue, redis, lockKey, desired, logger } = options;
  const token = randomBytes(8).toString('hex');
  const locked = await redis.set(lockKey, token, 'PX', options.lockTtlMs ?? 60_000, 'NX');
  if (locked !== 'OK') return { created: 0, updated: 0, removed: 0, unchanged: 0, ranHere: false };
  try {
    const existing = new Map((await queue.getJobSchedulers(0, -1)).map((s) => [s.key, s]));
    const report: ReconcileReport = { created: 0, updated: 0, removed: 0, unchanged: 0, ranHere: true };
    for (const want of desired) {
      const have = existing.get(want.schedulerId);
      existing.delete(want.schedulerId);
      const sameData =
        have?.template?.data?.workspace === want.data.workspace &&
        have?.template?.data?.targetId === want.data.targetId;
      if (have !== undefined && have.every === want.everyMs && sameData) {
        report.unchanged += 1;
        continue;
      }
      await queue.upsertJobScheduler(
        want.schedulerId,
        {
          every: want.everyMs,
          ...(want.firstRunDelayMs === undefined ? {} : { startDate: Date.now() + want.firstRunDelayMs }),
        },
        {
          name: 'poll',
          data: want.data,
          // Poll jobs are cheap to keep for a while and useful in `status`; failures are kept longer.
          opts: { removeOnComplete: { count: 1_000 }, removeOnFail: { count: 5_000 }, attempts: 3 },
        },
      );
      if (have === undefined) report.created += 1;
      else report.updated += 1;
    }
    for (const stale of existing.keys()) {
      await queue.removeJobScheduler(stale);
      report.removed += 1;
    }
    logger.info({ ...report }, 'poll schedulers reconciled');
    return report;
  } finally {
    await redis.eval(RELEASE_LOCK, 1, lockKey, token);
  }
}
