import type { Worker } from 'bullmq';
import { startDeliverWorker } from '../../workers/deliver.ts';
import { startDigest } from '../../workers/digest.ts';
import { startPollWorker } from '../../workers/poll.ts';
import { orphanedGroups } from '../deliver/groups.ts';
import { flushOrphanedGroups } from '../deliver/processor.ts';
import type { Shutdown } from '../ops/shutdown.ts';
import type { Runtime } from './runtime.ts';

export interface StartedWorkers {
  poll: Worker;
  deliver: Worker;
}

/**
 * Starts the workers of one process and registers their releases. The reconciler runs at start and
 * then every `replanEveryMs`, so cadences follow the month's use; only one process at a time
 * reconciles (a Redis lock), so running many `shelfwatch run` processes is safe.
 */
export async function startWorkers(
  runtime: Runtime,
  shutdown: Shutdown,
  options: {
    replanEveryMs?: number;
    reconcile?: boolean;
    janitorEveryMs?: number;
    /** Called before the first poll is scheduled, so a listener misses no job event (run's report). */
    onWorkers?: (workers: StartedWorkers) => void;
  } = {},
): Promise<StartedWorkers> {
  const connection = runtime.redis;
  const prefix = runtime.prefix;
  const deliver = startDeliverWorker({
    connection,
    prefix,
    concurrency: runtime.config.workers.deliverConcurrency,
    deps: runtime.deliveryDeps,
    clock: runtime.clock,
    shutdownSignal: shutdown.signal,
    metrics: runtime.metrics,
  });
  const poll = startPollWorker({
    connection,
    prefix,
    concurrency: runtime.config.workers.pollConcurrency,
    deps: runtime.pollDeps,
    clock: runtime.clock,
    shutdownSignal: shutdown.signal,
    metrics: runtime.metrics,
  });
  for (const [name, worker] of [
    ['deliver', deliver],
    ['poll', poll],
  ] as const) {
    worker.on('failed', (job, error) =>
      runtime.logger.warn(
        { queue: name, jobId: job?.id, attempts: job?.attemptsMade, err: error },
        'job failed',
      ),
    );
    worker.on('error', (error) => runtime.logger.error({ queue: name, err: error }, 'worker error'));
  }
  options.onWorkers?.({ poll, deliver });
  // Released in reverse: poll stops taking jobs first, then deliveries finish what polls enqueued.
  const digest = startDigest(runtime, { smtp: runtime.smtp, shutdownSignal: shutdown.signal });
  runtime.workers.push(poll, deliver, digest.worker);
  runtime.metricQueues.digest = digest.queue;
  shutdown.add('deliver worker', () => deliver.close());
  shutdown.add('digest worker', () => digest.close());
  shutdown.add('poll worker', () => poll.close());
  // Groups left holding alerts without a flush (a process died in between) get one within a minute.
  const janitor = setInterval(() => {
    orphanedGroups(runtime.redis, runtime.prefix)
      .then((orphans) => flushOrphanedGroups(runtime.deliveryDeps, orphans))
      .catch((error: unknown) => runtime.logger.warn({ err: error }, 'group janitor failed'));
  }, options.janitorEveryMs ?? 60_000);
  janitor.unref();
  shutdown.add('group janitor', () => clearInterval(janitor));
  if (options.reconcile !== false) {
    await runtime.reconcile();
    const timer = setInterval(
      () => {
        runtime.reconcile().catch((error: unknown) => runtime.logger.error({ err: error }, 're-plan failed'));
      },
      options.replanEveryMs ?? 10 * 60_000,
    );
    timer.unref();
    shutdown.add('re-plan timer', () => clearInterval(timer));
  }
  return { poll, deliver };
}
