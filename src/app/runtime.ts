import { Queue, type Worker } from 'bullmq';
import type { AnalyticsClient } from '../api/index.ts';
import { pollLimits } from '../budget/limits.ts';
import type { Plan } from '../budget/planner.ts';
import { RedisRequestBudget } from '../budget/request-budget.ts';
import type { Notifier } from '../channels/notifier.ts';
import { createSmtpPool, type SmtpPool } from '../channels/smtp-pool.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { ShardMap } from '../config/shards.ts';
import { ChannelHealth, channelSettings, sharedTimeZone } from '../deliver/channel-health.ts';
import type { DeliverQueueData, DeliveryJobSettings } from '../deliver/enqueue.ts';
import type { ChannelSettings, DeliveryDeps } from '../deliver/processor.ts';
import type { DigestDeps } from '../digest/build.ts';
import { type DigestJobData, desiredDigestSchedules } from '../digest/schedule.ts';
import { AlertLog } from '../history/alert-log.ts';
import { type DigestReconcileReport, reconcileDigestSchedulers } from '../jobs/digest-schedulers.ts';
import { digestReconcileLockKey, reconcileLockKey } from '../jobs/keys.ts';
import { type ReconcileReport, reconcilePollSchedulers } from '../jobs/poll-schedulers.ts';
import { DELIVER_QUEUE, DIGEST_QUEUE, POLL_QUEUE } from '../jobs/queues.ts';
import type { Logger } from '../ops/logger.ts';
import { Metrics } from '../ops/metrics.ts';
import type { PollDeps, PollJobData } from '../poll/processor.ts';
import { ConfigTargetRegistry } from '../poll/registry.ts';
import { planWorkspace, schedulesFromPlan } from '../poll/schedule.ts';
import { lastStateLoss, PollMemory, StateLoss } from '../poll/state-loss.ts';
import { bookTargetId } from '../poll/targets.ts';
import { SilenceStore } from '../silence/store.ts';
import { RedisSnapshotStore } from '../snapshot/store.ts';
import { type Clock, systemClock } from '../util/clock.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { DAY_MS, MINUTE_MS } from '../util/time-units.ts';
import { ApiClients, type ClientTuning } from './api-clients.ts';
import { deliveryDepsOf, digestDepsOf, type JobParts, pollDepsOf } from './job-deps.ts';
import { bookSource, budgetSource, channelSource, queueSource, whenReady } from './metric-sources.ts';
import { createNotifiers } from './notifiers.ts';
import { ReconcileFollowUp } from './reconcile-follow-up.ts';
import { type ClusterPatience, createRedisConnection, type RedisConnection } from './redis-connection.ts';
import { mergeReports, type ShardParts } from './shard-parts.ts';
import { sayStateLoss } from './state-watch.ts';

export interface RuntimeOptions {
  config: ShelfwatchConfig;
  logger: Logger;
  version: string;
  clock?: Clock;
  /** Replaces the configured channels (tests capture alerts this way). */
  notifiers?: Map<string, Notifier>;
  /** Attempts and backoff of delivery jobs (tests shorten them). */
  delivery?: DeliveryJobSettings;
  /** Replaces the channels' delivery settings (tests shorten group windows). */
  channelSettings?: Map<string, ChannelSettings>;
  /** For tests: a dispatcher, short timeouts, no retry delay. */
  client?: ClientTuning;
  /**
   * How long a Cluster client waits out a master that is away: `worker` for `run` (a restarted
   * master's rejoin must not fail its commands), `command` (the default) for one-shot commands,
   * which must answer while a master stays down (redis-connection.ts).
   */
  clusterPatience?: ClusterPatience;
}

/**
 * Everything a shelfwatch process shares, built once from a checked config: one Redis connection,
 * the budget, the snapshot store, one API client per workspace, the queues and the dependencies of
 * every job (poll, delivery, digest; see job-deps.ts). Workers (src/jobs/) and commands (plan,
 * status) are built on top of it.
 */
export class Runtime {
  /** The config in force: replaced whole by `apply` when a new revision arrives (live config). */
  config: ShelfwatchConfig;
  /** The revision `config` is (revisions/); 0 for a config read from a file or the environment. */
  revision = 0;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly redis: RedisConnection;
  /** The home shard's prefix, the configured one: the deployment's own keys (silences, channels, locks). */
  readonly prefix: string;
  /** Where workspace keys go: `prefix` with one shard, each workspace's shard's prefix with more. */
  readonly keys: KeyPrefix;
  readonly shardMap: ShardMap;
  /** Every shard's queues and job dependencies; [0] is home (the fields below are its). */
  readonly shards: ShardParts[] = [];
  readonly budget: RedisRequestBudget;
  readonly store: RedisSnapshotStore;
  registry: ConfigTargetRegistry;
  readonly pollQueue: Queue<PollJobData>;
  readonly deliverQueue: Queue<DeliverQueueData>;
  readonly digestQueue: Queue<DigestJobData>;
  readonly channelHealth: ChannelHealth;
  notifiers: Map<string, Notifier>;
  /** One pooled SMTP transport per URL, shared by email channels and the digest. */
  readonly smtp: SmtpPool;
  readonly metrics: Metrics;
  /** Workers started in this process (for readiness and metrics). */
  readonly workers: Worker[] = [];
  /** Queues whose depths /metrics reports; the digest queue joins when its worker starts. */
  readonly metricQueues: Record<string, Queue> = {};
  clients: ApiClients;
  pollDeps!: PollDeps;
  deliveryDeps!: DeliveryDeps;
  private readonly options: RuntimeOptions;
  /** Set by the live config (live-config.ts): the revision in force in the store. */
  revisionInForce: (() => Promise<number>) | undefined;
  readonly silences: SilenceStore;
  /** Every alert handed to delivery and each channel's outcome, for the console. */
  readonly alertLog: AlertLog;
  /** Reconciles again right after a due run when a reconcile left cadence changes for it. */
  private readonly followUp: ReconcileFollowUp;
  /** Notices Redis losing the state, and remembers each target's last good poll (state-loss.ts). */
  readonly stateLoss: StateLoss;

  constructor(options: RuntimeOptions) {
    const { config, logger } = options;
    this.options = options;
    this.config = config;
    this.logger = logger;
    this.clock = options.clock ?? systemClock;
    this.prefix = config.redis.prefix;
    this.shardMap = new ShardMap(this.prefix, config.redis.shards);
    this.keys = this.shardMap.count === 1 ? this.prefix : this.shardMap;
    // BullMQ's blocking connections need maxRetriesPerRequest: null; one setting for all is simpler.
    this.redis = createRedisConnection(config.redis, options.clusterPatience);
    this.budget = new RedisRequestBudget({ redis: this.redis, prefix: this.keys, clock: this.clock });
    this.store = new RedisSnapshotStore({ redis: this.redis, prefix: this.keys });
    this.registry = new ConfigTargetRegistry(config);
    const queueOptions = { connection: this.redis, prefix: this.prefix };
    this.pollQueue = new Queue<PollJobData>(POLL_QUEUE, queueOptions);
    this.deliverQueue = new Queue<DeliverQueueData>(DELIVER_QUEUE, queueOptions);
    this.digestQueue = new Queue<DigestJobData>(DIGEST_QUEUE, queueOptions);
    this.channelHealth = new ChannelHealth(this.redis, this.prefix);
    // Connection errors are reported once by whoever uses the connection (connect(), workers);
    // without a listener every queue would print each reconnect attempt.
    for (const queue of [this.pollQueue, this.deliverQueue, this.digestQueue] as Queue[]) {
      queue.on('error', (error) => logger.debug({ queue: queue.name, err: error }, 'queue connection error'));
    }
    this.redis.on('error', (error) => logger.debug({ err: error }, 'redis connection error'));
    this.metricQueues[POLL_QUEUE] = this.pollQueue;
    this.metricQueues[DELIVER_QUEUE] = this.deliverQueue;
    this.metrics = this.buildMetrics(options.version);
    this.alertLog = new AlertLog(
      this.redis,
      this.prefix,
      { maxEntries: config.alertLog.maxEntries, retentionMs: config.alertLog.retentionDays * DAY_MS },
      () => this.clock.now(),
    );
    this.smtp = createSmtpPool();
    this.notifiers =
      options.notifiers ?? createNotifiers(config.channels, { logger, smtp: this.smtp, clock: this.clock });
    this.clients = this.buildClients();
    this.stateLoss = new StateLoss({
      redis: this.redis,
      prefix: this.prefix,
      clock: this.clock,
      memory: new PollMemory(),
      onLoss: (info) => sayStateLoss(this, info),
    });
    this.silences = new SilenceStore(this.redis, this.prefix);
    this.followUp = new ReconcileFollowUp(() => this.reconcile(), logger);
    for (const [index, prefix] of this.shardMap.prefixes.entries()) {
      const home = index === 0;
      const shardQueues = { connection: this.redis, prefix };
      const pollQueue = home ? this.pollQueue : new Queue<PollJobData>(POLL_QUEUE, shardQueues);
      const deliverQueue = home ? this.deliverQueue : new Queue<DeliverQueueData>(DELIVER_QUEUE, shardQueues);
      if (!home) {
        for (const queue of [pollQueue, deliverQueue] as Queue[])
          queue.on('error', (error) =>
            logger.debug({ queue: queue.name, shard: index, err: error }, 'queue connection error'),
          );
        this.metricQueues[`${POLL_QUEUE}~${index}`] = pollQueue;
        this.metricQueues[`${DELIVER_QUEUE}~${index}`] = deliverQueue;
      }
      this.shards.push({
        index,
        prefix,
        workspaces: [],
        pollQueue,
        deliverQueue,
        // Filled in by buildShardDeps just below.
        pollDeps: undefined as unknown as PollDeps,
        deliveryDeps: undefined as unknown as DeliveryDeps,
      });
    }
    this.buildShardDeps(new Map());
  }

  /**
   * Every shard's job dependencies from the config in force. Jobs take their dependencies when they
   * start (jobs/*-job.ts read them through a getter), so a poll already running finishes with the
   * ones it started with and the next one takes these. `drain` are the settings of channels a new
   * revision removed: their held groups are still sent through their old notifier.
   */
  private buildShardDeps(drain: Map<string, ChannelSettings>): void {
    const { options } = this;
    for (const shard of this.shards) {
      const parts = { ...this.jobParts(), prefix: shard.prefix, deliverQueue: shard.deliverQueue };
      shard.workspaces = this.shardMap.workspacesOn(
        shard.index,
        this.config.workspaces.map((ws) => ws.id),
      );
      shard.pollDeps = pollDepsOf(parts, options.delivery);
      const configured =
        options.channelSettings ??
        channelSettings(this.config.channels, sharedTimeZone(this.config.workspaces));
      shard.deliveryDeps = deliveryDepsOf(parts, {
        notifiers: this.notifiers,
        health: this.channelHealth,
        silences: this.silences,
        settings: drain.size === 0 ? configured : new Map([...drain, ...configured]),
        delivery: options.delivery,
      });
    }
    const homeShard = this.shards[0] as ShardParts;
    this.pollDeps = homeShard.pollDeps;
    this.deliveryDeps = homeShard.deliveryDeps;
  }

  /**
   * Puts a new revision in force without a restart: targets and rules (the registry), API clients,
   * channels, routes, mute windows and every job's dependencies are rebuilt from it; the schedulers
   * and the budget plan follow at the caller's reconcile. What cannot change in a running process
   * (`redis`, and `server`, `workers`, `console` until a restart) is kept and named in the result.
   * Old clients and channels are closed after `retireAfterMs`, so polls and sends already running
   * on them finish; a removed channel keeps sending what its groups hold until then.
   */
  apply(
    next: ShelfwatchConfig,
    revision: number,
    retireAfterMs = 5 * MINUTE_MS,
  ): { restartNeeded: string[] } {
    const before = this.config;
    const restartNeeded = (['server', 'workers', 'console'] as const).filter(
      (section) => JSON.stringify(before[section]) !== JSON.stringify(next[section]),
    );
    const config: ShelfwatchConfig = { ...next, redis: before.redis };
    const retired: { close(): Promise<void> | void }[] = [this.clients];
    const oldNotifiers = this.notifiers;
    const oldSettings = this.deliveryDeps.settings;
    this.config = config;
    this.revision = revision;
    this.registry = new ConfigTargetRegistry(config);
    this.clients = this.buildClients();
    const drain = new Map<string, ChannelSettings>();
    if (this.options.notifiers === undefined) {
      const fresh = createNotifiers(config.channels, {
        logger: this.logger,
        smtp: this.smtp,
        clock: this.clock,
      });
      for (const [id, notifier] of oldNotifiers) {
        retired.push({ close: () => notifier.close?.() });
        const settings = oldSettings.get(id);
        if (!fresh.has(id) && settings !== undefined) {
          fresh.set(id, notifier);
          drain.set(id, settings);
        }
      }
      this.notifiers = fresh;
    }
    this.buildShardDeps(drain);
    const timer = setTimeout(() => {
      for (const part of retired) void Promise.resolve(part.close()).catch(() => {});
      // The drained channels leave the map once their notifiers are closed.
      for (const id of drain.keys())
        if (this.notifiers.get(id) === oldNotifiers.get(id)) this.notifiers.delete(id);
    }, retireAfterMs);
    timer.unref();
    return { restartNeeded };
  }

  private buildClients(): ApiClients {
    return new ApiClients({
      config: this.config,
      budget: this.budget,
      metrics: this.metrics,
      logger: this.logger,
      clock: this.clock,
      version: this.options.version,
      tuning: this.options.client ?? {},
    });
  }

  private jobParts(): JobParts {
    return {
      config: this.config,
      logger: this.logger,
      clock: this.clock,
      redis: this.redis,
      keys: this.keys,
      prefix: this.prefix,
      budget: this.budget,
      store: this.store,
      registry: this.registry,
      clients: this.clients,
      metrics: this.metrics,
      deliverQueue: this.deliverQueue,
      alertLog: this.alertLog,
      stateLoss: this.stateLoss,
    };
  }

  /** The shard of a workspace: its queues and its job dependencies. */
  shardOf(workspace: string): ShardParts {
    return this.shards[this.shardMap.shardOf(workspace)] ?? (this.shards[0] as ShardParts);
  }

  private buildMetrics(version: string): Metrics {
    const { config } = this;
    // Scrapes during a Redis outage must not pile up commands behind the reconnect.
    const up = () => this.redis.status === 'ready';
    const { bookMetrics } = config.server;
    // Read at each scrape: a new revision changes the books, workspaces and channels shown.
    const books = () =>
      this.config.workspaces.flatMap((ws) =>
        ws.books.flatMap((b) =>
          b.marketplaces.map((m) => ({ workspace: ws.id, asin: b.asin, marketplace: m as string })),
        ),
      );
    return new Metrics({
      version,
      maxBookSeries: bookMetrics.maxSeries,
      sources: {
        // Off by default: per-book series multiply with the account (server.bookMetrics).
        ...(bookMetrics.enabled
          ? {
              books: whenReady(up, () =>
                bookSource(
                  books(),
                  async (book) => {
                    const id = bookTargetId(book.asin, book.marketplace);
                    const found = await this.store.get({ workspace: book.workspace, kind: 'book', id });
                    return found?.observation.kind === 'book' ? found.observation : undefined;
                  },
                  () => this.pollDeps?.history,
                  () => this.clock.now(),
                  // A book has at least BSR, reviews and rating: no more books than the cap allows.
                  Math.ceil(bookMetrics.maxSeries / 3),
                )(),
              ),
            }
          : {}),
        budget: whenReady(up, () =>
          budgetSource(
            this.budget,
            this.config.workspaces.map((ws) => ({ id: ws.id, limits: pollLimits(ws) })),
          )(),
        ),
        queues: whenReady(up, queueSource(this.metricQueues)),
        channels: whenReady(up, () =>
          channelSource(
            this.config.channels.map((c) => c.id),
            (id) => this.channelHealth.disabledReason(id),
          )(),
        ),
        workersRunning: () => this.workers.filter((w) => w.isRunning() && !w.isPaused()).length,
      },
    });
  }

  /**
   * Waits until Redis answers. The connection retries forever by design (maxRetriesPerRequest:
   * null), so an unreachable server would hang a command: this gives up after `timeoutMs`.
   */
  async connect(timeoutMs = 5_000): Promise<void> {
    if (this.redis.status === 'wait') void this.redis.connect().catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.redis.ping(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The workspace's client for background polls: keeps the reserve free. */
  client(workspace: string): AnalyticsClient {
    return this.clients.client(workspace);
  }

  /** A client for interactive commands: may use the reserve, waits for a full minute window. */
  interactiveClient(workspace: string, maxWaitMs?: number): AnalyticsClient {
    return this.clients.interactiveClient(workspace, maxWaitMs);
  }

  /** The digest's dependencies; `smtp` defaults to the process's shared pool. */
  digestDeps(smtp: Pick<SmtpPool, 'sendMail'> = this.smtp): DigestDeps {
    return digestDepsOf(this, smtp);
  }

  /** The current plan of every workspace, from learned costs and this month's use. */
  stateLostAt(): Promise<number | null> {
    return lastStateLoss(this.redis, this.prefix);
  }

  async plans(only?: readonly string[]): Promise<Map<string, Plan>> {
    const plans = new Map<string, Plan>();
    const now = this.clock.now();
    // `only`: the workspaces whose shard answers (status leaves out those of a node that is down).
    const wanted = only === undefined ? undefined : new Set(only);
    for (const ws of this.config.workspaces.filter((w) => wanted?.has(w.id) ?? true)) {
      const targets = this.registry.all(ws.id);
      // All at once (ioredis pipelines them): one by one cost 0.2 s on 2,000 targets.
      const healths = await Promise.all(targets.map((target) => this.store.getHealth(target.ref)));
      const costs = new Map(targets.map((target, i) => [target.ref.id, healths[i]?.costPerPoll ?? null]));
      const usage = await this.budget.usage(ws.id);
      plans.set(ws.id, planWorkspace(ws, targets, costs, usage.monthUsed, now));
    }
    return plans;
  }

  /**
   * Makes each shard's poll schedulers match the config and the current plan (one process at a
   * time per shard). Shards are reconciled apart: one whose Redis node is down fails alone.
   */
  async reconcile(): Promise<ReconcileReport> {
    const inForce = this.inForceCheck();
    const plans = await this.plans();
    const reports = await Promise.allSettled(
      this.shards.map((shard) =>
        reconcilePollSchedulers({
          queue: shard.pollQueue,
          redis: this.redis,
          lockKey: reconcileLockKey(shard.prefix),
          desired: [...plans]
            .filter(([workspace]) => this.shardMap.shardOf(workspace) === shard.index)
            .flatMap(([workspace, plan]) => schedulesFromPlan(workspace, plan, this.clock)),
          logger: this.logger.child({ component: 'reconciler', shard: shard.index }),
          ...inForce,
        }),
      ),
    );
    const report = mergeReports(reports);
    this.followUp.after(report);
    return report;
  }

  /**
   * With a live config, schedulers are only written from the revision in force: a process still on
   * an older one (it applies the new one within seconds) must not undo what the others planned.
   * The revision is taken before planning, so a switch during the plan is caught too.
   */
  private inForceCheck(): { inForce?: () => Promise<boolean> } {
    const current = this.revisionInForce;
    if (current === undefined) return {};
    const planned = this.revision;
    return { inForce: async () => (await current()) === planned };
  }

  /** Makes the digest schedulers match the config (one process at a time; safe to call often). */
  reconcileDigests(): Promise<DigestReconcileReport> {
    return reconcileDigestSchedulers({
      queue: this.digestQueue,
      redis: this.redis,
      lockKey: digestReconcileLockKey(this.prefix),
      desired: desiredDigestSchedules(this.config),
      logger: this.logger.child({ component: 'digest-reconciler' }),
      ...this.inForceCheck(),
    });
  }

  async close(): Promise<void> {
    // Against a Redis that never answered, QUIT (and a queue's close) would wait for it forever:
    // drop the connection first, so commands like `status` end with their one-line error.
    this.followUp.stop();
    const reachable = this.redis.status === 'ready';
    if (!reachable) this.redis.disconnect();
    for (const shard of this.shards) {
      await shard.pollQueue.close();
      await shard.deliverQueue.close();
    }
    await this.digestQueue.close();
    await this.clients.close();
    for (const notifier of this.notifiers.values()) await notifier.close?.();
    await this.smtp.closeAll();
    if (reachable && this.redis.status !== 'end')
      await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
