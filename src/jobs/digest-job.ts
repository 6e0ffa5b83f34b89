import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Runtime } from '../app/runtime.ts';
import type { SmtpPool } from '../deliver/channels/smtp-pool.ts';
import { DeliveryError } from '../deliver/notifier.ts';
import type { DigestDeps } from '../digest/build.ts';
import { DigestDeferredError } from '../digest/gather.ts';
import { type DigestJobResult, processDigest } from '../digest/processor.ts';
import { type DigestJobData, desiredDigestSchedules } from '../digest/schedule.ts';
import { DigestStateStore } from '../digest/state.ts';
import { type Clock, clockTimeOfReal, realDelayMs } from '../util/clock.ts';
import { type DigestReconcileReport, reconcileDigestSchedulers } from './digest-schedulers.ts';
import { DIGEST_QUEUE } from './queues.ts';
import { plannedRunTimeOf } from './schedulers.ts';

export interface DigestWorkerOptions {
  connection: Redis | Cluster;
  prefix: string;
  deps: DigestDeps;
  clock: Clock;
  shutdownSignal: AbortSignal;
  concurrency?: number;
  /** A deferral longer than this (real ms) gives the day up: a digest hours late is no morning digest. */
  maxDeferMs?: number;
}

export type DigestWorkerResult = DigestJobResult | { status: 'skipped'; retryAtMs: number; reason: string };

/** When the digest was due: the scheduler's planned time, stable across retries of the job. */
function fireTimeOf(job: Job<DigestJobData>): number {
  return plannedRunTimeOf(job);
}

/** Wires `processDigest` to the digest queue; the logic lives in src/digest/processor.ts. */
export function startDigestWorker(options: DigestWorkerOptions): Worker<DigestJobData, DigestWorkerResult> {
  const { deps, clock } = options;
  const maxDeferMs = options.maxDeferMs ?? 6 * 3_600_000;
  return new Worker<DigestJobData, DigestWorkerResult>(
    DIGEST_QUEUE,
    async (job, token, jobSignal) => {
      const signal =
        jobSignal === undefined
          ? options.shutdownSignal
          : AbortSignal.any([jobSignal, options.shutdownSignal]);
      try {
        return await processDigest(deps, job.data, {
          signal,
          fireTimeMs: clockTimeOfReal(clock, fireTimeOf(job)),
        });
      } catch (error) {
        if (error instanceof DeliveryError && !error.retryable) throw new UnrecoverableError(error.message);
        if (!(error instanceof DigestDeferredError)) throw error;
        const delay = realDelayMs(clock, error.retryAtMs - clock.now());
        if (delay > maxDeferMs)
          return { status: 'skipped', retryAtMs: error.retryAtMs, reason: error.reason };
        // Parked, not failed: waiting for the budget never spends one of the job's attempts.
        await job.moveToDelayed(Date.now() + delay, token);
        throw new DelayedError();
      }
    },
    { connection: options.connection, prefix: options.prefix, concurrency: options.concurrency ?? 1 },
  );
}

/** The digest's dependencies from a runtime and the process's shared SMTP pool. */
export function digestDepsOf(runtime: Runtime, smtp: Pick<SmtpPool, 'sendMail'>): DigestDeps {
  return {
    config: runtime.config,
    clientFor: (workspace) => runtime.client(workspace),
    store: runtime.store,
    budget: runtime.budget,
    redis: runtime.redis,
    prefix: runtime.prefix,
    state: new DigestStateStore(runtime.redis, runtime.prefix),
    smtp,
    clock: runtime.clock,
    logger: runtime.logger.child({ component: 'digest' }),
    reserveWalk: runtime.pollDeps.reserveWalk,
  };
}

export interface StartedDigest {
  worker: Worker<DigestJobData, DigestWorkerResult>;
  queue: Queue<DigestJobData>;
  /** Makes the digest schedulers match the config (one process at a time; safe to call often). */
  reconcile(): Promise<DigestReconcileReport>;
  close(): Promise<void>;
}

/**
 * Everything `shelfwatch run` needs for the digest: its queue, its worker and its reconciler
 * (`startWorkers` logs the worker's events and reconciles at start and on every re-plan).
 */
export function startDigest(
  runtime: Runtime,
  options: { smtp: Pick<SmtpPool, 'sendMail'>; shutdownSignal: AbortSignal },
): StartedDigest {
  const queue = new Queue<DigestJobData>(DIGEST_QUEUE, { connection: runtime.redis, prefix: runtime.prefix });
  const worker = startDigestWorker({
    connection: runtime.redis,
    prefix: runtime.prefix,
    deps: digestDepsOf(runtime, options.smtp),
    clock: runtime.clock,
    shutdownSignal: options.shutdownSignal,
  });
  // Without a listener, each reconnect attempt of the queue printed a raw stack trace on stderr;
  // the connection watch (src/app/redis-connection.ts) reports outages once.
  queue.on('error', (error) =>
    runtime.logger.debug({ queue: DIGEST_QUEUE, err: error }, 'queue connection error'),
  );
  return {
    worker,
    queue,
    reconcile: () =>
      reconcileDigestSchedulers({
        queue,
        redis: runtime.redis,
        lockKey: `${runtime.prefix}:digest-reconcile-lock`,
        desired: desiredDigestSchedules(runtime.config),
        logger: runtime.logger.child({ component: 'digest-reconciler' }),
      }),
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
