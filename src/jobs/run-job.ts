/**
 * The one wrapper every job's processor runs in. It gives the processor one abort signal (BullMQ's
 * per-job signal and the process's shutdown), and turns what the processor throws into BullMQ's
 * terms: a `DeferredError` parks the job as delayed (no attempt spent), a refusal for good becomes
 * an `UnrecoverableError`, anything else is an ordinary failure that BullMQ retries. Each ending is
 * told to the job's `count` hook (metrics).
 */
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { DeferredError } from '../model/deferred.ts';
import { type Clock, realDelayMs } from '../util/clock.ts';

/** How a run ended, for metrics. `completed` carries the processor's result. */
export type JobEnding<Result> =
  | { outcome: 'completed'; result: Result }
  | { outcome: 'failed' | 'deferred' | 'skipped' | 'rejected' };

/** What a run gives up when its deferral lies further away than `maxDeferMs`. */
export interface SkippedRun {
  status: 'skipped';
  retryAtMs: number;
  reason: string;
}

/** The job's own rules; everything else is the same for every job. */
export interface JobPolicy<Data, Result> {
  process(job: Job<Data>, signal: AbortSignal): Promise<Result>;
  /** An error that retrying cannot fix: the job fails for good with its message. */
  isPermanent?(error: unknown): error is Error;
  /**
   * A deferral longer than this (real ms) ends the run as skipped instead of parking it: the
   * scheduler's next run comes sooner, or the moment has passed. Absent: every deferral parks.
   */
  maxDeferMs?: number;
  /**
   * Counted deferrals (see `DeferredError.counted`) after which the job fails for good; the count
   * is kept in the job's data as `deferrals`. Absent: no limit, and the data is never touched.
   */
  maxDeferrals?: number;
  /** Runs before the job fails for good (its last attempt, a permanent error, too many deferrals). */
  beforeFinalFailure?(job: Job<Data>): Promise<void>;
  count?(job: Job<Data>, ending: JobEnding<Result>): void;
}

export interface JobRunContext {
  clock: Clock;
  /** Aborted on shutdown; combined with BullMQ's own per-job signal. */
  shutdownSignal: AbortSignal;
}

type Deferrable = { deferrals?: number };

/** The BullMQ processor of a job: `policy.process` inside the shared handling. */
export function jobProcessor<Data, Result>(
  policy: JobPolicy<Data, Result>,
  ctx: JobRunContext,
): (job: Job<Data>, token?: string, jobSignal?: AbortSignal) => Promise<Result | SkippedRun> {
  const { clock, shutdownSignal } = ctx;
  return async (job, token, jobSignal) => {
    const signal = jobSignal === undefined ? shutdownSignal : AbortSignal.any([jobSignal, shutdownSignal]);
    const count = (ending: JobEnding<Result>) => policy.count?.(job, ending);
    const failForGood = async (message: string): Promise<never> => {
      count({ outcome: 'rejected' });
      await policy.beforeFinalFailure?.(job);
      throw new UnrecoverableError(message);
    };
    try {
      const result = await policy.process(job, signal);
      count({ outcome: 'completed', result });
      return result;
    } catch (error) {
      if (policy.isPermanent?.(error) === true) return failForGood(error.message);
      if (!(error instanceof DeferredError)) {
        count({ outcome: 'failed' });
        if (policy.beforeFinalFailure !== undefined && job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
          await policy.beforeFinalFailure(job);
        }
        throw error;
      }
      const delay = realDelayMs(clock, error.retryAtMs - clock.now());
      if (policy.maxDeferMs !== undefined && delay > policy.maxDeferMs) {
        count({ outcome: 'skipped' });
        return { status: 'skipped', retryAtMs: error.retryAtMs, reason: error.reason };
      }
      if (policy.maxDeferrals !== undefined) {
        const data = job.data as Data & Deferrable;
        const deferrals = (data.deferrals ?? 0) + (error.counted ? 1 : 0);
        if (deferrals > policy.maxDeferrals) {
          return failForGood(`deferred ${policy.maxDeferrals} times: ${error.reason}`);
        }
        if (error.counted) await job.updateData({ ...data, deferrals });
      }
      count({ outcome: 'deferred' });
      // Parked, not failed: a deferral never spends one of the job's attempts.
      await job.moveToDelayed(Date.now() + delay, token);
      throw new DelayedError();
    }
  };
}

/**
 * A job's dependencies, or a getter of the ones in force: a job reads them once, when it starts,
 * so a new config revision (app/runtime.ts `apply`) takes effect at the next job and a job already
 * running finishes on the one it started with.
 */
export type DepsSource<D> = D | (() => D);

export function depsNow<D extends object>(source: DepsSource<D>): D {
  return typeof source === 'function' ? (source as () => D)() : source;
}
