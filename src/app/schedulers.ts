import { randomBytes } from 'node:crypto';
import type { JobSchedulerJson, JobSchedulerTemplateOptions, RepeatOptions } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.ts';

/** How often a scheduler fires: every N real ms (first run after a delay), or a cron in a zone. */
export type Repeat = { every: number; firstRunDelayMs?: number } | { pattern: string; tz: string };

/** One job scheduler the config wants. Its data holds ids only, never secrets. */
export interface DesiredScheduler<T> {
  schedulerId: string;
  repeat: Repeat;
  data: T;
}

/** The part of a BullMQ Queue the reconciler uses. */
export interface SchedulerQueue<T> {
  readonly name: string;
  getJobSchedulers(start?: number, end?: number): Promise<JobSchedulerJson<T>[]>;
  upsertJobScheduler(
    id: string,
    repeat: Omit<RepeatOptions, 'key'>,
    template: { name: string; data: T; opts: JobSchedulerTemplateOptions },
  ): Promise<unknown>;
  removeJobScheduler(id: string): Promise<boolean>;
}

export interface ReconcileReport {
  created: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** False when another process held the lock: it reconciles, this one does nothing. */
  ranHere: boolean;
}

const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

function sameRepeat(have: JobSchedulerJson, want: Repeat): boolean {
  return 'every' in want ? have.every === want.every : have.pattern === want.pattern && have.tz === want.tz;
}

function sameData(have: unknown, want: object): boolean {
  if (typeof have !== 'object' || have === null) return false;
  const record = have as Record<string, unknown>;
  return Object.entries(want).every(([key, value]) => record[key] === value);
}

/**
 * Makes a queue's job schedulers match what the config wants. Upserting from every replica at boot
 * has had race bugs in BullMQ, so one process at a time does it behind a Redis lock, diffing
 * `getJobSchedulers()` against the wanted set: new ones created, changed ones upserted, and those
 * that left the config removed (a job already waiting still runs once: processors check that
 * their target still exists).
 */
export async function reconcileSchedulers<T extends object>(options: {
  queue: SchedulerQueue<T>;
  redis: Redis | Cluster;
  lockKey: string;
  desired: readonly DesiredScheduler<T>[];
  jobName: string;
  jobOptions: JobSchedulerTemplateOptions;
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
      if (have !== undefined && sameRepeat(have, want.repeat) && sameData(have.template?.data, want.data)) {
        report.unchanged += 1;
        continue;
      }
      const repeat =
        'every' in want.repeat
          ? {
              every: want.repeat.every,
              ...(want.repeat.firstRunDelayMs === undefined
                ? {}
                : { startDate: Date.now() + want.repeat.firstRunDelayMs }),
            }
          : { pattern: want.repeat.pattern, tz: want.repeat.tz };
      await queue.upsertJobScheduler(want.schedulerId, repeat, {
        name: options.jobName,
        data: want.data,
        opts: { ...options.jobOptions },
      });
      if (have === undefined) report.created += 1;
      else report.updated += 1;
    }
    for (const stale of existing.keys()) {
      await queue.removeJobScheduler(stale);
      report.removed += 1;
    }
    logger.info({ queue: queue.name, ...report }, 'schedulers reconciled');
    return report;
  } finally {
    await redis.eval(RELEASE_LOCK, 1, lockKey, token);
  }
}
