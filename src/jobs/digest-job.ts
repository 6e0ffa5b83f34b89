/** The digest job: `processDigest` on the digest queue; a day's digest deferred past 6 hours is given up. */
import { type Job, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { DeliveryError } from '../channels/notifier.ts';
import type { DigestDeps } from '../digest/build.ts';
import { type DigestJobResult, processDigest } from '../digest/processor.ts';
import type { DigestJobData } from '../digest/schedule.ts';
import { type Clock, clockTimeOfReal } from '../util/clock.ts';
import { HOUR_MS } from '../util/time-units.ts';
import { DIGEST_QUEUE } from './queues.ts';
import { type DepsSource, depsNow, type JobPolicy, jobProcessor, type SkippedRun } from './run-job.ts';
import { plannedRunTimeOf } from './schedulers.ts';

export interface DigestWorkerOptions {
  connection: Redis | Cluster;
  prefix: string;
  deps: DepsSource<DigestDeps>;
  clock: Clock;
  shutdownSignal: AbortSignal;
  concurrency?: number;
  /** A deferral longer than this (real ms) gives the day up: a digest hours late is no morning digest. */
  maxDeferMs?: number;
}

export type DigestWorkerResult = DigestJobResult | SkippedRun;

/** When the digest was due: the scheduler's planned time, stable across retries of the job. */
function fireTimeOf(job: Job<DigestJobData>): number {
  return plannedRunTimeOf(job);
}

/** What a digest run means to the job wrapper: a channel's refusal for good is not retried. */
export function digestPolicy(options: DigestWorkerOptions): JobPolicy<DigestJobData, DigestJobResult> {
  const { deps, clock } = options;
  return {
    process: (job, signal) =>
      processDigest(depsNow(deps), job.data, { signal, fireTimeMs: clockTimeOfReal(clock, fireTimeOf(job)) }),
    isPermanent: (error): error is DeliveryError => error instanceof DeliveryError && !error.retryable,
    maxDeferMs: options.maxDeferMs ?? 6 * HOUR_MS,
  };
}

/**
 * A sender killed mid-send leaves its job active until BullMQ's job lock expires and a stalled-job
 * check of a live worker puts it back: with these, the retry starts within about 35 s of the kill
 * (a restarted worker's second check), and the recipient's own lock (DIGEST_LOCK_TTL_MS) is gone by
 * then. Shorter than BullMQ's 30 s defaults: a digest a minute late is still a morning digest, and
 * one build never blocks the event loop anywhere near 15 s.
 */
export const DIGEST_STALL = { lockDurationMs: 15_000, stalledIntervalMs: 10_000 } as const;

/** The digest queue's worker. */
export function startDigestWorker(options: DigestWorkerOptions): Worker<DigestJobData, DigestWorkerResult> {
  return new Worker<DigestJobData, DigestWorkerResult>(
    DIGEST_QUEUE,
    jobProcessor(digestPolicy(options), options),
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 1,
      lockDuration: DIGEST_STALL.lockDurationMs,
      stalledInterval: DIGEST_STALL.stalledIntervalMs,
      // A re-run finds the day sent (or sends it): crashes must not spend the job.
      maxStalledCount: 5,
    },
  );
}
