import type { Queue, Worker } from 'bullmq';
import { orphanedGroups } from '../deliver/groups.ts';
import { flushOrphanedGroups } from '../deliver/processor.ts';
import { desiredDigestSchedules } from '../digest/schedule.ts';
import { startDeliverWorker } from '../jobs/deliver-job.ts';
import { startDigestWorker } from '../jobs/digest-job.ts';
import { requeueOrphanedActive } from '../jobs/orphaned-active.ts';
import { startPollWorker } from '../jobs/poll-job.ts';
import type { Logger } from '../ops/logger.ts';
import type { Shutdown } from '../ops/shutdown.ts';
import { readyProbeKey, writableAlertKey } from '../poll/keys.ts';
import { redisWritableAlert } from '../rules/redis-health.ts';
import { MINUTE_MS } from '../util/time-units.ts';
import { ClockSkewWatch } from './clock-skew.ts';
import { isConnectionError, type RedisConnectionWatch, watchRedisConnection } from './redis-connection.ts';
import { type FullStretch, isOutOfMemory, probeWrite, RedisFullWatch } from './redis-full.ts';
import type { Runtime } from './runtime.ts';
import { ScheduleWatch } from './schedule-watch.ts';
import { ensureShardLayout } from './shard-layout.ts';

export interface StartedWorkers {
  poll: Worker;
  deliver: Worker;
  digest: Worker;
  /** The poll and digest schedulers: counted for `/readyz`, recreated when they vanish. */
  schedules: ScheduleWatch;
  /** Reconciles the poll and the digest schedulers with the config (what the re-plan timer runs). */
  reconcile(): Promise<void>;
  /** A full Redis, said once per stretch; `/readyz` probes writes through it. */
  redisFull: RedisFullWatch;
}

export interface StartOptions {
  replanEveryMs?: number;
  reconcile?: boolean;
  janitorEveryMs?: number;
  /** How often the schedulers are counted (and reconciled at once if some are missing). */
  scheduleCheckEveryMs?: number;
  /** How often the state marker is checked (a lost Redis state noticed and said). */
  stateCheckEveryMs?: number;
  /** How often this process's clock is compared with Redis TIME (clock-skew.ts). */
  clockCheckEveryMs?: number;
  /** Called before the first poll is scheduled, so a listener misses no job event (run's report). */
  onWorkers?: (workers: Pick<StartedWorkers, 'poll' | 'deliver'>) => void;
}

/**
 * A worker's `error` events: Redis being unreachable is said once by the connection watch, so
 * those (and the job locks an outage made expire) go to debug; anything else is an error line.
 */
export function logWorkerErrors(
  logger: Logger,
  queue: string,
  worker: Worker,
  watch: RedisConnectionWatch,
  full?: RedisFullWatch,
): void {
  worker.on('failed', (job, error) => {
    if (full?.report(error) === true) return;
    logger.warn({ queue, jobId: job?.id, attempts: job?.attemptsMade, err: error }, 'job failed');
  });
  worker.on('error', (error) => {
    // A full Redis refuses every write: said once per stretch (redis-full.ts), not once per refusal.
    if (full?.report(error) === true) return;
    if (watch.explains(error)) logger.debug({ queue, err: error }, 'worker connection error');
    else logger.error({ queue, err: error }, 'worker error');
  });
}

/**
 * Starts the workers of one process and registers their releases. The poll and digest schedulers
 * are reconciled at start and then every `replanEveryMs`, so cadences follow the month's use and
 * digests follow the config; only one process at a time reconciles (a Redis lock), so running many
 * `shelfwatch run` processes is safe. Schedulers that vanish from Redis are noticed within
 * `scheduleCheckEveryMs` (see ScheduleWatch), and a Redis outage is logged once, not per attempt.
 */
export async function startWorkers(
  runtime: Runtime,
  shutdown: Shutdown,
  options: StartOptions = {},
): Promise<StartedWorkers> {
  // A changed shard layout that was not migrated would poll from empty state: refused here.
  await ensureShardLayout(runtime);
  const connection = runtime.redis;
  const prefix = runtime.prefix;
  // Before any worker exists: BullMQ promotes and plans jobs by this process's Date.now().
  const clock = new ClockSkewWatch(runtime.redis, runtime.logger, runtime.metrics);
  const checkClock = () =>
    clock.check().catch((error: unknown) => runtime.logger.debug({ err: error }, 'clock check failed'));
  await checkClock();
  const clockTimer = setInterval(() => {
    if (runtime.redis.status === 'ready') void checkClock();
  }, options.clockCheckEveryMs ?? 60_000);
  clockTimer.unref();
  shutdown.add('clock check', () => clearInterval(clockTimer));
  // The state marker is read (or written) before the first poll: a loss after this one is noticed.
  await runtime.stateLoss
    .check()
    .catch((error: unknown) => runtime.logger.warn({ err: error }, 'could not read the state marker'));
  // One poll and one delivery worker per shard this process serves (redis.shards.serve).
  const served = runtime.shards.filter((shard) => runtime.shardMap.served.includes(shard.index));
  const shardWorkers = served.map((shard) => ({
    shard,
    deliver: startDeliverWorker({
      connection,
      prefix: shard.prefix,
      concurrency: runtime.config.workers.deliverConcurrency,
      deps: () => shard.deliveryDeps,
      clock: runtime.clock,
      shutdownSignal: shutdown.signal,
      metrics: runtime.metrics,
    }),
    poll: startPollWorker({
      connection,
      prefix: shard.prefix,
      concurrency: runtime.config.workers.pollConcurrency,
      deps: () => shard.pollDeps,
      clock: runtime.clock,
      shutdownSignal: shutdown.signal,
      metrics: runtime.metrics,
    }),
  }));
  const first = shardWorkers[0];
  if (first === undefined) throw new RangeError('this process serves no shard (redis.shards.serve)');
  const { poll, deliver } = first;
  for (const { poll, deliver } of shardWorkers) options.onWorkers?.({ poll, deliver });
  // Released in reverse: poll stops taking jobs first, then deliveries finish what polls enqueued.
  const digest = startDigestWorker({
    connection,
    prefix,
    deps: () => runtime.digestDeps(),
    clock: runtime.clock,
    shutdownSignal: shutdown.signal,
  });
  const watch = watchRedisConnection(runtime.redis, runtime.logger);
  const redisFull = new RedisFullWatch(runtime.logger, runtime.metrics, undefined, (stretch) => {
    void afterFull(stretch);
  });
  // The end of a full stretch: one `redis_writable` alert across the processes (a claim in Redis),
  // and the schedulers whose next job a refused write lost restarted now, not at the next re-plan.
  const afterFull = async (stretch: FullStretch) => {
    try {
      const claim = await runtime.redis.set(writableAlertKey(runtime.prefix), '1', 'PX', 60_000, 'NX');
      if (claim === 'OK') await runtime.pollDeps.alerts.enqueue([redisWritableAlert(stretch, Date.now())]);
      const queues: Queue[] = [runtime.digestQueue];
      for (const shard of runtime.shards) queues.push(shard.pollQueue, shard.deliverQueue);
      const requeued = (
        await Promise.all(queues.map((queue) => requeueOrphanedActive(queue, runtime.redis)))
      ).flat();
      if (requeued.length > 0)
        runtime.logger.info(
          { jobs: requeued.length },
          'jobs whose end a full Redis refused to store put back in the queue',
        );
      if (options.reconcile !== false) await reconcile();
    } catch (error) {
      runtime.logger.warn({ err: error }, 'after a full Redis: the alert or the schedulers failed');
    }
  };
  logWorkerErrors(runtime.logger, 'digest', digest, watch, redisFull);
  shutdown.add('redis connection watch', () => watch.stop());
  runtime.metricQueues.digest = runtime.digestQueue;
  shutdown.add('digest worker', () => digest.close());
  for (const { shard, poll, deliver } of shardWorkers) {
    const suffix = shard.index === 0 ? '' : `~${shard.index}`;
    logWorkerErrors(runtime.logger, `deliver${suffix}`, deliver, watch, redisFull);
    logWorkerErrors(runtime.logger, `poll${suffix}`, poll, watch, redisFull);
    runtime.workers.push(poll, deliver);
    shutdown.add(`deliver worker${suffix}`, () => deliver.close());
  }
  runtime.workers.push(digest);
  for (const { shard, poll } of shardWorkers)
    shutdown.add(`poll worker${shard.index === 0 ? '' : `~${shard.index}`}`, () => poll.close());
  // Groups left holding alerts without a flush (a process died in between) get one within a minute.
  const janitor = setInterval(() => {
    for (const { shard } of shardWorkers) {
      orphanedGroups(runtime.redis, shard.prefix)
        .then((orphans) => flushOrphanedGroups(shard.deliveryDeps, orphans))
        .catch((error: unknown) =>
          runtime.logger.warn({ err: error, shard: shard.index }, 'group janitor failed'),
        );
    }
  }, options.janitorEveryMs ?? 60_000);
  janitor.unref();
  shutdown.add('group janitor', () => clearInterval(janitor));
  const reconcile = async () => {
    await runtime.stateLoss.check();
    await runtime.reconcile();
    await runtime.reconcileDigests();
  };
  // A failed reconcile (Redis away) is retried by the schedule check and the next re-plan.
  const reconcileOrLog = () =>
    reconcile().catch((error: unknown) =>
      runtime.logger[isConnectionError(error) ? 'debug' : 'error']({ err: error }, 're-plan failed'),
    );
  const schedules = new ScheduleWatch({
    sources: [
      ...runtime.shards.map((shard) => ({
        queue: shard.index === 0 ? 'poll' : `poll~${shard.index}`,
        count: () => shard.pollQueue.getJobSchedulersCount(),
        wanted: () => shard.workspaces.reduce((n, id) => n + runtime.registry.all(id).length, 0),
      })),
      {
        queue: 'digest',
        count: () => runtime.digestQueue.getJobSchedulersCount(),
        wanted: () => desiredDigestSchedules(runtime.config).length,
      },
    ],
    reconcile,
    logger: runtime.logger,
  });
  if (options.reconcile !== false) {
    await reconcileOrLog();
    const every = (ms: number, name: string, task: () => Promise<unknown>) => {
      const timer = setInterval(() => void task(), ms);
      timer.unref();
      shutdown.add(name, () => clearInterval(timer));
    };
    every(options.replanEveryMs ?? 10 * MINUTE_MS, 're-plan timer', reconcileOrLog);
    // A lost state is said within this, even while no poll finds a missing baseline.
    every(options.stateCheckEveryMs ?? 5_000, 'state check', async () => {
      if (runtime.redis.status !== 'ready') return;
      try {
        // A full Redis: writes are probed until one goes through (the stretch's end is said then).
        if (redisFull.full) await probeWrite(runtime.redis, readyProbeKey(runtime.prefix), redisFull);
        // The schedulers went with the state: recreated now, not at the next schedule check.
        if ((await runtime.stateLoss.check()) !== undefined) await schedules.check();
      } catch (error) {
        if (isOutOfMemory(error)) return;
        runtime.logger[isConnectionError(error) ? 'debug' : 'warn']({ err: error }, 'state check failed');
      }
    });
    every(options.scheduleCheckEveryMs ?? 30_000, 'schedule check', async () => {
      // During an outage the count would only queue up behind the reconnect: the next check runs it.
      if (runtime.redis.status !== 'ready') return;
      await schedules
        .check()
        .catch((error: unknown) =>
          runtime.logger[isConnectionError(error) ? 'debug' : 'warn'](
            { err: error },
            'schedule check failed',
          ),
        );
    });
  }
  return { poll, deliver, digest, schedules, reconcile, redisFull };
}
