/**
 * The deliver queue's two jobs: admissions (one alert to one channel's group) and flushes (one
 * group as one message). A flush failing for good keeps its group's alerts as its dead letter.
 */
import { type Job, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { DeliverQueueData, DeliveryJobData, FlushJobData } from '../deliver/enqueue.ts';
import {
  type AdmitResult,
  type DeliveryDeps,
  type FlushResult,
  keepForDeadLetter,
  PermanentDeliveryError,
  processAdmit,
  processFlush,
} from '../deliver/processor.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Clock } from '../util/clock.ts';
import { DELIVER_QUEUE } from './queues.ts';
import { type DepsSource, depsNow, type JobPolicy, jobProcessor } from './run-job.ts';

export interface DeliverWorkerOptions {
  connection: Redis | Cluster;
  prefix: string;
  concurrency: number;
  deps: DepsSource<DeliveryDeps>;
  clock: Clock;
  shutdownSignal: AbortSignal;
  metrics?: Metrics;
}

/**
 * A flush parked more often than this (a channel answering 429 for hours) fails into the dead
 * letters. Waits for the pacing slot are not counted (DeferredError.counted).
 */
const MAX_DEFERRALS = 500;

/** What a flush run means to the job wrapper: dead letters, the deferral limit, delivery metrics. */
export function flushPolicy(options: DeliverWorkerOptions): JobPolicy<FlushJobData, FlushResult> {
  const { metrics } = options;
  // Taken when the flush starts: the channels and settings of the revision in force then.
  const deps = () => depsNow(options.deps);
  return {
    process: (job, signal) => processFlush(deps(), job.data, signal, job.id ?? ''),
    isPermanent: (error): error is PermanentDeliveryError => error instanceof PermanentDeliveryError,
    maxDeferrals: MAX_DEFERRALS,
    beforeFinalFailure: async (job) => {
      await keepForDeadLetter(deps(), job.data, job.id ?? '');
    },
    count(job, ending) {
      if (ending.outcome === 'completed') {
        const { result } = ending;
        metrics?.delivery(job.data.channelId, result.status, result.status === 'sent' ? result.alerts : 0);
      } else if (ending.outcome !== 'skipped') {
        metrics?.delivery(job.data.channelId, ending.outcome, 0);
      }
    },
  };
}

/** The deliver queue's worker: admissions run as they are, flushes inside the job wrapper. */
export function startDeliverWorker(
  options: DeliverWorkerOptions,
): Worker<DeliverQueueData, AdmitResult | FlushResult> {
  const flush = jobProcessor(flushPolicy(options), options);
  return new Worker<DeliverQueueData, AdmitResult | FlushResult>(
    DELIVER_QUEUE,
    async (job, token, jobSignal) => {
      if (job.name !== 'flush') return processAdmit(depsNow(options.deps), job.data as DeliveryJobData);
      // A flush has no maxDeferMs, so it never ends as skipped.
      return (await flush(job as Job<FlushJobData>, token, jobSignal)) as FlushResult;
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      // A worker killed mid-send leaves its job stalled; BullMQ's default (1) fails it on the second
      // stall. Re-running is safe (in-flight alerts are kept, the dedup log filters), so allow more.
      maxStalledCount: 5,
    },
  );
}
