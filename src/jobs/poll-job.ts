/** The poll job: `processPoll` on the poll queue, deferrals parked for up to 15 minutes. */
import { type Job, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Metrics } from '../ops/metrics.ts';
import { type PollDeps, type PollJobData, type PollResult, processPoll } from '../poll/processor.ts';
import { type Clock, clockTimeOfReal } from '../util/clock.ts';
import { MINUTE_MS } from '../util/time-units.ts';
import { POLL_QUEUE } from './queues.ts';
import { type DepsSource, depsNow, type JobPolicy, jobProcessor, type SkippedRun } from './run-job.ts';
import { plannedRunTimeOf } from './schedulers.ts';

export interface PollWorkerOptions {
  connection: Redis | Cluster;
  prefix: string;
  concurrency: number;
  deps: DepsSource<PollDeps>;
  clock: Clock;
  /** Aborted on shutdown; combined with BullMQ's own per-job signal. */
  shutdownSignal: AbortSignal;
  /**
   * A deferral longer than this (real ms) drops the poll instead of parking it: the scheduler's
   * next job comes sooner, and a month of parked polls must not pile up behind an exhausted quota.
   */
  maxDeferMs?: number;
  metrics?: Metrics;
  /** BullMQ's job lock and stalled-job check (tests shorten them); the defaults are POLL_STALL. */
  stall?: { lockDurationMs: number; stalledIntervalMs: number };
}

/**
 * A killed worker's poll stays locked until its lock expires (`lockDurationMs` after the last
 * renewal), and is put back in the queue by the next stalled-job check of a live worker after
 * that (every `stalledIntervalMs`): a free worker then runs it again. So the target's gap is at
 * most the sum of the two plus one poll (docs/operations.md, test/poll/stall-gap.test.ts). BullMQ's
 * defaults; a shorter lock would expire under long event-loop stalls and run polls twice.
 */
export const POLL_STALL = { lockDurationMs: 30_000, stalledIntervalMs: 30_000 } as const;

/** The longest a killed worker's target waits before another worker polls it again (plus one poll). */
export function stalledPollBoundMs(stall: PollWorkerOptions['stall'] = POLL_STALL): number {
  return stall.lockDurationMs + stall.stalledIntervalMs;
}

export type PollJobResult = PollResult | SkippedRun;

/** When this poll was due: the scheduler's planned time, stable across retries of the same job. */
export function scheduledTimeOf(job: Job<PollJobData>): number {
  return plannedRunTimeOf(job);
}

/** What a poll run means to the job wrapper: the processor, its deferral bound and its metrics. */
export function pollPolicy(options: PollWorkerOptions): JobPolicy<PollJobData, PollResult> {
  const { deps, clock, metrics } = options;
  return {
    process(job, signal) {
      metrics?.pollLag((Date.now() - scheduledTimeOf(job)) / 1_000);
      return processPoll(depsNow(deps), job.data, {
        signal,
        pollTimeMs: clockTimeOfReal(clock, scheduledTimeOf(job)),
      });
    },
    maxDeferMs: options.maxDeferMs ?? 15 * MINUTE_MS,
    count(job, ending) {
      if (metrics === undefined) return;
      const kind = depsNow(deps).registry.target(job.data.workspace, job.data.targetId)?.kind ?? 'unknown';
      const outcome = ending.outcome === 'completed' ? ending.result.status : ending.outcome;
      // A poll never fails for good (no permanent errors): 'rejected' cannot reach here.
      if (outcome !== 'rejected') metrics.poll(job.data.workspace, kind, outcome);
    },
  };
}

/** The poll queue's worker. */
export function startPollWorker(options: PollWorkerOptions): Worker<PollJobData, PollJobResult> {
  const stall = options.stall ?? POLL_STALL;
  return new Worker<PollJobData, PollJobResult>(POLL_QUEUE, jobProcessor(pollPolicy(options), options), {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    // Re-running a poll is safe (fingerprinted deliveries, CAS commit): survive repeated worker kills.
    maxStalledCount: 5,
    lockDuration: stall.lockDurationMs,
    stalledInterval: stall.stalledIntervalMs,
    autorun: true,
  });
}
