import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { DeliverQueueData, DeliveryJobData } from '../deliver/enqueue.ts';
import {
  type AdmitResult,
  type DeliveryDeps,
  FlushDeferredError,
  type FlushJobData,
  type FlushResult,
  keepForDeadLetter,
  PermanentDeliveryError,
  processAdmit,
  processFlush,
} from '../deliver/processor.ts';
import type { DeliveryOutcome, Metrics } from '../ops/metrics.ts';
import { type Clock, realDelayMs } from '../util/clock.ts';
import { DELIVER_QUEUE } from './queues.ts';

export interface DeliverWorkerOptions {
  connection: Redis | Cluster;
  prefix: string;
  concurrency: number;
  deps: DeliveryDeps;
  clock: Clock;
  shutdownSignal: AbortSignal;
  metrics?: Metrics;
}

/**
 * A flush parked more often than this (a channel answering 429 for hours) fails into the dead
 * letters. Waits for the pacing slot are not counted (FlushDeferredError.counted).
 */
const MAX_DEFERRALS = 500;

/** Wires admission and flush jobs to their processors; the logic lives in src/deliver/processor.ts. */
export function startDeliverWorker(
  options: DeliverWorkerOptions,
): Worker<DeliverQueueData, AdmitResult | FlushResult> {
  const { deps, clock } = options;
  return new Worker<DeliverQueueData, AdmitResult | FlushResult>(
    DELIVER_QUEUE,
    async (job, token, jobSignal) => {
      if (job.name !== 'flush') return processAdmit(deps, job.data as DeliveryJobData);
      const signal =
        jobSignal === undefined
          ? options.shutdownSignal
          : AbortSignal.any([jobSignal, options.shutdownSignal]);
      const flush = job as Job<FlushJobData & { deferrals?: number }>;
      const count = (outcome: DeliveryOutcome, alerts = 0) =>
        options.metrics?.delivery(flush.data.channelId, outcome, alerts);
      try {
        const result = await processFlush(deps, flush.data, signal, flush.id ?? '');
        count(result.status, result.status === 'sent' ? result.alerts : 0);
        return result;
      } catch (error) {
        // A job failing for good keeps its group's alerts as its dead letter first.
        const keep = () => keepForDeadLetter(deps, flush.data, flush.id ?? '');
        if (error instanceof PermanentDeliveryError) {
          count('rejected');
          await keep();
          throw new UnrecoverableError(error.message);
        }
        if (!(error instanceof FlushDeferredError)) {
          count('failed');
          if (flush.attemptsMade + 1 >= (flush.opts.attempts ?? 1)) await keep();
          throw error;
        }
        const deferrals = (flush.data.deferrals ?? 0) + (error.counted ? 1 : 0);
        if (deferrals > MAX_DEFERRALS) {
          count('rejected');
          await keep();
          throw new UnrecoverableError(`deferred ${MAX_DEFERRALS} times: ${error.reason}`);
        }
        count('deferred');
        if (error.counted) await flush.updateData({ ...flush.data, deferrals });
        // Parked, not failed: waiting for a slot or a Retry-After never spends an attempt.
        await flush.moveToDelayed(Date.now() + realDelayMs(clock, error.untilMs - clock.now()), token);
        throw new DelayedError();
      }
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
