import { randomBytes } from 'node:crypto';
import type { Job, JobSchedulerJson, JobSchedulerTemplateOptions, RepeatOptions } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.ts';

/**
 * How often a scheduler fires: every N real ms, or a cron in a zone. `firstRunDelayMs` places a new
 * scheduler's first run (and an overdue one's next); `exact` turns the hysteresis off, for cadences
 * a person set (config overrides), which should apply as written.
 */
export type Repeat =
  | { every: number; firstRunDelayMs?: number; exact?: boolean }
  | { pattern: string; tz: string };

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
  /** Job ids in the given states (BullMQ's `getRanges`): the schedulers' pending jobs. */
  getRanges(types: PendingState[], start?: number, end?: number): Promise<string[]>;
}

/** States in which a scheduler's current job will still run (and, once it starts, plan the next). */
const PENDING_STATES = ['waiting', 'delayed', 'prioritized', 'active'] as const;
type PendingState = (typeof PENDING_STATES)[number];

export interface ReconcileReport {
  created: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** False when another process held the lock: it reconciles, this one does nothing. */
  ranHere: boolean;
  /** Cadence changes left for later because a run was due about now (repeatFor's `due`). */
  deferred: number;
  /**
   * When (real time, ms) to reconcile again so those changes are made once their due run has
   * started, instead of at the next re-plan up to 10 minutes later; null when none was deferred.
   */
  retryAtMs: number | null;
}

/** A reconcile that made no change (another process held the lock, or a newer revision came). */
export function idleReport(ranHere = false): ReconcileReport {
  return { created: 0, updated: 0, removed: 0, unchanged: 0, ranHere, deferred: 0, retryAtMs: null };
}

/** After a due run's time, the margin for a worker to take it (BullMQ then moves `next` on). */
const DUE_RETRY_MARGIN_MS = 1_000;

/**
 * When a job was planned to run: for a scheduler's job, the run time BullMQ gave it. BullMQ 6 names
 * each iteration `repeat:<schedulerId>:<millis>` (addJobScheduler / updateJobScheduler Lua), and
 * that id is stable across retries and deferrals. `opts.prevMillis` is set for cron schedulers
 * only, and `timestamp` is when the job was *created*, i.e. when the previous run started: a
 * whole cadence early for `every` schedulers. A job added by hand runs when it was added.
 */
export function plannedRunTimeOf(job: Pick<Job, 'id' | 'repeatJobKey' | 'timestamp' | 'opts'>): number {
  if (job.repeatJobKey !== undefined && job.id?.startsWith(`repeat:${job.repeatJobKey}:`) === true) {
    const millis = Number(job.id.slice(`repeat:${job.repeatJobKey}:`.length));
    if (Number.isSafeInteger(millis) && millis > 0) return millis;
  }
  return job.opts.prevMillis ?? job.timestamp;
}

const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * Hysteresis: a scheduler already running up to this much slower than the plan is left alone.
 * Only slower: a kept slower cadence spends less than the plan, and the planner, which re-plans
 * every 10 min from the month's actual use, hands what was left over to every target (and moves
 * this one once the gap passes the band), so the hysteresis can never make the month run dry
 * early, nor push it over its ceiling (the Redis budget gate enforces the hard limits either way).
 * A kept faster cadence would overspend by up to the band, and when every target already sits at
 * its slowest cadence there is nothing left for the planner to stretch. 5% is a few of the
 * planner's rounding units (1 s below an hour, 1 min above: at most 1/60), by which cadences move
 * on most re-plans, so that noise no longer touches schedulers; and it is half the 10% over a
 * cadence that the latency goal allows (p95 ≤ 1.1 × cadence + 2 s).
 */
export const KEEP_SLOWER_SHARE = 0.05;

/** A cadence change waits for the next reconcile while a run is due this close to now (see repeatFor). */
const DUE_BEFORE_MS = 60_000;
const DUE_AFTER_MS = 5_000;

/** Upserts and removals in flight at once while reconciling (see reconcileSchedulers). */
const UPSERT_CONCURRENCY = 16;

/** What `getJobSchedulers()` reports of an existing scheduler that the repeat decision reads. */
export type ExistingRepeat = Pick<JobSchedulerJson, 'every' | 'next' | 'pattern' | 'tz' | 'iterationCount'>;

/** The repeat options an upsert passes to BullMQ. */
export type UpsertRepeat =
  | { every: number; startDate?: number; offset?: number }
  | { pattern: string; tz: string };

export interface RepeatDecision {
  /** False: leave the scheduler's timing alone (upsert only if its data changed, with `repeat`). */
  changed: boolean;
  repeat: UpsertRepeat;
  /**
   * `new`: no scheduler to follow, the first run after `firstRunDelayMs`; `same`; `in-band`: a
   * cadence kept by the hysteresis; `due`: a run is due about now, the change waits; `phase`: the next run is the last + the new cadence (or the
   * pending first run); `overdue`: that is past, so the next run is within the first-run spread;
   * `pattern`: a cron or its zone changed.
   */
  reason: 'new' | 'same' | 'in-band' | 'due' | 'phase' | 'overdue' | 'pattern';
}

/**
 * The repeat a wanted scheduler gets, given the existing one (if any) and the real time now.
 *
 * BullMQ's upsert with a changed `every` drops the pending iteration and starts again at
 * `startDate` (addJobScheduler-11.lua). So a changed cadence keeps the scheduler's phase: the next
 * run is the last one (`next − every`: BullMQ schedules the next iteration when one starts) plus
 * the new cadence. One that never ran (iteration count 1) keeps its pending first run. If the new
 * cadence makes the target overdue, it runs within its first-run spread (< 5 min) rather than at
 * once, so a month's rollover (every cadence shortening) does not fire all targets in one second.
 * Only new schedulers start at now + firstRunDelayMs.
 */
export function repeatFor(want: Repeat, have: ExistingRepeat | undefined, nowMs: number): RepeatDecision {
  if (!('every' in want)) {
    const repeat = { pattern: want.pattern, tz: want.tz };
    if (have === undefined) return { changed: true, repeat, reason: 'new' };
    const same = have.pattern === want.pattern && have.tz === want.tz;
    return { changed: !same, repeat, reason: same ? 'same' : 'pattern' };
  }
  const spread = nowMs + (want.firstRunDelayMs ?? 0);
  const haveEvery = have?.every;
  if (have === undefined || haveEvery === undefined || have.next == null) {
    const start = want.firstRunDelayMs === undefined ? undefined : spread;
    return { changed: true, repeat: everyFrom(want.every, start), reason: 'new' };
  }
  const keep = { every: haveEvery };
  if (haveEvery === want.every) return { changed: false, repeat: keep, reason: 'same' };
  // A run due about now may be starting while this reconciles: BullMQ moves `next` on only once
  // the job is active, so an upsert could take the run that just started for the pending one (a
  // second poll at once, or a phase set from the wrong run). The next reconcile makes the change.
  if (have.next > nowMs - DUE_BEFORE_MS && have.next <= nowMs + DUE_AFTER_MS) {
    return { changed: false, repeat: keep, reason: 'due' };
  }
  const slower = haveEvery > want.every && haveEvery <= want.every * (1 + KEEP_SLOWER_SHARE);
  if (slower && want.exact !== true) return { changed: false, repeat: keep, reason: 'in-band' };
  const neverRan = have.iterationCount !== undefined && have.iterationCount <= 1;
  const next = neverRan ? have.next : have.next - haveEvery + want.every;
  if (next >= nowMs) return { changed: true, repeat: everyFrom(want.every, next), reason: 'phase' };
  return { changed: true, repeat: everyFrom(want.every, spread), reason: 'overdue' };
}

/**
 * `every` from `startDate`. The offset (phase within `every`) is passed too: an upsert keeps the
 * old one otherwise (storeJobScheduler), and BullMQ aligns a late scheduler's catch-up run to it,
 * which with the old cadence's offset could land far from the new phase. An offset of 0 would
 * read as "none", so such a start moves 1 ms later.
 */
function everyFrom(every: number, startDate: number | undefined): UpsertRepeat {
  if (startDate === undefined) return { every };
  const whole = Math.ceil(startDate);
  const start = whole % every === 0 ? whole + 1 : whole;
  return { every, startDate: start, offset: start % every };
}

function sameData(have: unknown, want: object): boolean {
  if (typeof have !== 'object' || have === null) return false;
  const record = have as Record<string, unknown>;
  return Object.entries(want).every(([key, value]) => record[key] === value);
}

/** Runs `task` on every item, `limit` at a time; after all started tasks settle, throws the first error. */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let index = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (failure === undefined && index < items.length) {
      const item = items[index++]!;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== undefined) throw failure.error;
}

/**
 * Makes a queue's job schedulers match what the config wants. Upserting from every replica at boot
 * has had race bugs in BullMQ, so one process at a time does it behind a Redis lock, diffing
 * `getJobSchedulers()` against the wanted set: new ones created, changed ones upserted (keeping
 * their phase, see `repeatFor`), and those that left the config removed (a job already waiting
 * still runs once: processors check that their target still exists). The upserts and removals
 * run 16 at a time: one at a time, 10,000 schedulers took 3 s, mostly round trips.
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
  /**
   * Asked once the lock is held: false when `desired` was planned from a config revision that is no
   * longer in force (this process has not applied the new one yet), so it must not undo the
   * schedulers of a process that has.
   */
  inForce?: () => Promise<boolean>;
}): Promise<ReconcileReport> {
  const { queue, redis, lockKey, desired, logger } = options;
  const token = randomBytes(8).toString('hex');
  const locked = await redis.set(lockKey, token, 'PX', options.lockTtlMs ?? 60_000, 'NX');
  if (locked !== 'OK') return idleReport();
  try {
    if (options.inForce !== undefined && !(await options.inForce())) return idleReport();
    const existing = new Map((await queue.getJobSchedulers(0, -1)).map((s) => [s.key, s]));
    // BullMQ plans a scheduler's next job when its current one starts; a write refused then (a full
    // Redis) leaves a scheduler whose current job ran with nothing after it, and it never fires
    // again. Such a scheduler (its `next` job is in no pending state) is upserted, which adds one.
    const pending = new Set(await queue.getRanges([...PENDING_STATES], 0, -1));
    const stopped = (have: { key: string; next?: number | null }) =>
      have.next != null && !pending.has(`repeat:${have.key}:${have.next}`);
    let restarted = 0;
    const report = idleReport(true);
    const now = Date.now();
    const upserts: { want: DesiredScheduler<T>; repeat: UpsertRepeat; created: boolean }[] = [];
    for (const want of desired) {
      const have = existing.get(want.schedulerId);
      existing.delete(want.schedulerId);
      const decision = repeatFor(want.repeat, have, now);
      if (decision.reason === 'due' && have?.next != null) {
        report.deferred += 1;
        const retryAt = Math.max(have.next, now) + DUE_RETRY_MARGIN_MS;
        report.retryAtMs = Math.min(report.retryAtMs ?? retryAt, retryAt);
      }
      if (have !== undefined && !decision.changed && sameData(have.template?.data, want.data)) {
        if (!stopped(have)) {
          report.unchanged += 1;
          continue;
        }
        restarted += 1;
      }
      upserts.push({ want, repeat: decision.repeat, created: have === undefined });
    }
    await eachLimited(upserts, UPSERT_CONCURRENCY, async ({ want, repeat, created }) => {
      await queue.upsertJobScheduler(want.schedulerId, repeat, {
        name: options.jobName,
        data: want.data,
        opts: { ...options.jobOptions },
      });
      if (created) report.created += 1;
      else report.updated += 1;
    });
    await eachLimited([...existing.keys()], UPSERT_CONCURRENCY, async (stale) => {
      await queue.removeJobScheduler(stale);
      report.removed += 1;
    });
    if (restarted > 0)
      logger.warn(
        { queue: queue.name, restarted },
        'schedulers without a next job (a write refused?) restarted',
      );
    logger.info({ queue: queue.name, ...report }, 'schedulers reconciled');
    return report;
  } finally {
    await redis.eval(RELEASE_LOCK, 1, lockKey, token);
  }
}
