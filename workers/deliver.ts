import { UnrecoverableError, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { DELIVER_QUEUE } from '../src/app/runtime.ts';
import type { DeliveryJobData } from '../src/deliver/enqueue.ts';
import {
  type DeliveryDeps,
  type DeliveryResult,
  PermanentDeliveryError,
  processDelivery,
} from '../src/deliver/processor.ts';

export interface DeliverWorkerOptions {
  connection: Redis | Cluster;
  prefix: string;
  concurrency: number;
  deps: DeliveryDeps;
  shutdownSignal: AbortSignal;
}

/** Wires `processDelivery` to the delivery queue; the logic lives in src/deliver/processor.ts. */
export function startDeliverWorker(options: DeliverWorkerOptions): Worker<DeliveryJobData, DeliveryResult> {
  return new Worker<DeliveryJobData, DeliveryResult>(
    DELIVER_QUEUE,
    async (job, _token, jobSignal) => {
      const signal =
        jobSignal === undefined
          ? options.shutdownSignal
          : AbortSignal.any([jobSignal, options.shutdownSignal]);
      try {
        return await processDelivery(options.deps, job.data, signal);
      } catch (error) {
        // A channel that refuses for good (Slack 404/410, a rejected address) gets no more attempts.
        if (error instanceof PermanentDeliveryError) throw new UnrecoverableError(error.message);
        throw error;
      }
    },
    { connection: options.connection, prefix: options.prefix, concurrency: options.concurrency },
  );
}
