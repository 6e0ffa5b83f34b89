import { Queue, type Worker } from 'bullmq';
import type { Dispatcher } from 'undici';
import { type AnalyticsClient, createAnalyticsClient } from '../api/index.ts';
import { walkWithinBudget } from '../budget/gate.ts';
import { PauseEpisodes } from '../budget/pause-episode.ts';
import type { Plan } from '../budget/planner.ts';
import {
  BudgetExhaustedError,
  type BudgetLimits,
  budgetGate,
  RedisRequestBudget,
} from '../budget/request-budget.ts';
import { workspaceContract } from '../config/contract.ts';
import type { ShelfwatchConfig, WorkspaceConfig } from '../config/schema.ts';
import {
  ChannelHealth,
  channelDisabledAlert,
  channelSettings,
  sharedTimeZone,
} from '../deliver/channel-health.ts';
import { createSmtpPool, type SmtpPool } from '../deliver/channels/smtp-pool.ts';
import { DedupLog } from '../deliver/dedup.ts';
import {
  DEFAULT_DELIVERY_SETTINGS,
  type DeliverQueueData,
  type DeliveryJobSettings,
  jobRetention,
  QueueAlertSink,
} from '../deliver/enqueue.ts';
import { GroupBuffer } from '../deliver/groups.ts';
import type { Notifier } from '../deliver/notifier.ts';
import { ChannelPacer } from '../deliver/pacing.ts';
import type { ChannelSettings, DeliveryDeps } from '../deliver/processor.ts';
import { createRouter } from '../deliver/routing.ts';
import { AlertLog } from '../history/alert-log.ts';
import { RedisHistoryStore } from '../history/store.ts';
import { type ReconcileReport, reconcilePollSchedulers } from '../jobs/poll-schedulers.ts';
import { DELIVER_QUEUE, POLL_QUEUE } from '../jobs/queues.ts';
import type { Logger } from '../ops/logger.ts';
import { budgetSource, channelSource, Metrics, queueSource, whenReady } from '../ops/metrics.ts';
import { TargetLease } from '../poll/lease.ts';
import type { AlertSink, PollDeps, PollJobData } from '../poll/processor.ts';
import { ConfigTargetRegistry } from '../poll/registry.ts';
import { planWorkspace, schedulesFromPlan } from '../poll/schedule.ts';
import { configAuthors, SilenceGate } from '../silence/gate.ts';
import { SilenceStore } from '../silence/store.ts';
import { RedisSnapshotStore } from '../snapshot/store.ts';
import { type Clock, realDelayMs, systemClock } from '../util/clock.ts';
import { createNotifiers } from './notifiers.ts';
import { createRedisConnection, type RedisConnection } from './redis-connection.ts';

export { DELIVER_QUEUE, POLL_QUEUE } from '../jobs/queues.ts';

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
  client?: {
    dispatcher?: Dispatcher;
    timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
    transientRetryDelayMs?: number;
  };
}

/**
 * Everything a shelfwatch process shares, built once from a checked config: one Redis connection,
 * the budget, the snapshot store, one API client per workspace, the queues and the processors'
 * dependencies. Workers (workers/*.ts) and commands (plan, status) are built on top of it.
 */
export class Runtime {
  readonly config: ShelfwatchConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly redis: RedisConnection;
  readonly prefix: string;
  readonly budget: RedisRequestBudget;
  readonly store: RedisSnapshotStore;
  readonly registry: ConfigTargetRegistry;
  readonly pollQueue: Queue<PollJobData>;
  readonly deliverQueue: Queue<DeliverQueueData>;
  readonly channelHealth: ChannelHealth;
  readonly notifiers: Map<string, Notifier>;
  /** One pooled SMTP transport per URL, shared by email channels and the digest. */
  readonly smtp: SmtpPool;
  readonly metrics: Metrics;
  /** Workers started in this process (for readiness and metrics). */
  readonly workers: Worker[] = [];
  /** Queues whose depths /metrics reports; the digest queue joins when its worker starts. */
  readonly metricQueues: Record<string, Queue> = {};
  readonly pollDeps: PollDeps;
  readonly deliveryDeps: DeliveryDeps;
  readonly silences: SilenceStore;
  /** Every alert handed to delivery and each channel's outcome, for the console. */
  readonly alertLog: AlertLog;
  private readonly clients = new Map<string, AnalyticsClient>();
  private readonly extraClients: AnalyticsClient[] = [];
  private readonly clientOptions: NonNullable<RuntimeOptions['client']>;
  private readonly version: string;

  constructor(options: RuntimeOptions) {
    const { config, logger } = options;
    this.config = config;
    this.logger = logger;
    this.clock = options.clock ?? systemClock;
    this.prefix = config.redis.prefix;
    // BullMQ's blocking connections need maxRetriesPerRequest: null; one setting for all is simpler.
    this.redis = createRedisConnection(config.redis);
    this.budget = new RedisRequestBudget({ redis: this.redis, prefix: this.prefix, clock: this.clock });
    this.store = new RedisSnapshotStore({ redis: this.redis, prefix: this.prefix });
    this.registry = new ConfigTargetRegistry(config);
    this.pollQueue = new Queue<PollJobData>(POLL_QUEUE, { connection: this.redis, prefix: this.prefix });
    this.deliverQueue = new Queue<DeliverQueueData>(DELIVER_QUEUE, {
      connection: this.redis,
      prefix: this.prefix,
    });
    this.channelHealth = new ChannelHealth(this.redis, this.prefix);
    // Connection errors are reported once by whoever uses the connection (connect(), workers);
    // without a listener every queue would print each reconnect attempt.
    for (const queue of [this.pollQueue, this.deliverQueue] as Queue[]) {
      queue.on('error', (error) => logger.debug({ queue: queue.name, err: error }, 'queue connection error'));
    }
    this.redis.on('error', (error) => logger.debug({ err: error }, 'redis connection error'));
    this.metricQueues[POLL_QUEUE] = this.pollQueue;
    this.metricQueues[DELIVER_QUEUE] = this.deliverQueue;
    // Scrapes during a Redis outage must not pile up commands behind the reconnect.
    const up = () => this.redis.status === 'ready';
    this.metrics = new Metrics({
      version: options.version,
      sources: {
        budget: whenReady(
          up,
          budgetSource(
            this.budget,
            config.workspaces.map((ws) => ({ id: ws.id, limits: pollLimits(ws) })),
          ),
        ),
        queues: whenReady(up, queueSource(this.metricQueues)),
        channels: whenReady(
          up,
          channelSource(
            config.channels.map((c) => c.id),
            (id) => this.channelHealth.disabledReason(id),
          ),
        ),
        workersRunning: () => this.workers.filter((w) => w.isRunning() && !w.isPaused()).length,
      },
    });
    const router = createRouter(config);
    const delivery = options.delivery ?? DEFAULT_DELIVERY_SETTINGS;
    this.alertLog = new AlertLog(
      this.redis,
      this.prefix,
      { maxEntries: config.alertLog.maxEntries, retentionMs: config.alertLog.retentionDays * 86_400_000 },
      () => this.clock.now(),
    );
    this.smtp = createSmtpPool();
    this.notifiers =
      options.notifiers ?? createNotifiers(config.channels, { logger, smtp: this.smtp, clock: this.clock });
    this.clientOptions = options.client ?? {};
    this.version = options.version;
    for (const ws of config.workspaces) {
      this.clients.set(ws.id, this.buildClient(ws, budgetGate(this.budget, ws.id, pollLimits(ws))));
    }
    this.pollDeps = {
      clientFor: (workspace) => this.client(workspace),
      store: this.store,
      budget: this.budget,
      pauses: new PauseEpisodes(this.redis, this.prefix),
      registry: this.registry,
      alerts: countingSink(
        new QueueAlertSink(this.deliverQueue, router, delivery, this.alertLog),
        this.metrics,
      ),
      clock: this.clock,
      logger: logger.child({ component: 'poll' }),
      lease: new TargetLease(this.redis, this.prefix),
      reserveWalk: (workspace, costPerPoll, signal, walk) =>
        walkWithinBudget(
          {
            budget: this.budget,
            workspace,
            limits: pollLimits(this.workspace(workspace)),
            costPerPoll,
            signal,
            onWasted: (requests) => this.metrics.apiRequestsWasted(workspace, requests),
          },
          walk,
        ),
      history: new RedisHistoryStore({
        redis: this.redis,
        prefix: this.prefix,
        retentionMs: config.history.retention,
      }),
    };
    this.silences = new SilenceStore(this.redis, this.prefix);
    this.deliveryDeps = {
      silences: new SilenceGate(this.silences, config.muteWindows, configAuthors(config), (channel, n) =>
        this.metrics.silenced(channel, n),
      ),
      channels: this.notifiers,
      settings:
        options.channelSettings ?? channelSettings(config.channels, sharedTimeZone(config.workspaces)),
      groups: new GroupBuffer(this.redis, this.prefix),
      pacer: new ChannelPacer(this.redis, this.prefix, this.clock),
      dedup: new DedupLog(this.redis, this.prefix),
      clock: this.clock,
      logger: logger.child({ component: 'deliver' }),
      scheduleFlush: async (jobId, data, runAtMs) => {
        await this.deliverQueue.add('flush', data, {
          jobId,
          delay: realDelayMs(this.clock, runAtMs - this.clock.now()),
          ...jobRetention(delivery),
        });
      },
      disableChannel: async (channelId, error) => {
        await this.channelHealth.disable(channelId, error.message.slice(0, 300));
        const alert = channelDisabledAlert(channelId, error, this.clock.now());
        // Told through every other channel the alert would reach; never through the broken one.
        const others = new QueueAlertSink(this.deliverQueue, (a) =>
          router(a).filter((t) => t.channelId !== channelId),
        );
        await others.enqueue([alert]);
        this.logger.error({ channelId, status: error.status }, 'channel disabled after a permanent refusal');
      },
      isDisabled: (channelId) => this.channelHealth.disabledReason(channelId),
      alertLog: this.alertLog,
    };
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

  private workspace(id: string): WorkspaceConfig {
    const ws = this.config.workspaces.find((w) => w.id === id);
    if (ws === undefined) throw new Error(`no workspace "${id}" in the config`);
    return ws;
  }

  /** The workspace's client for background polls: keeps the reserve free. */
  client(workspace: string): AnalyticsClient {
    const client = this.clients.get(workspace);
    if (client === undefined) throw new Error(`no workspace "${workspace}" in the config`);
    return client;
  }

  /**
   * A client for interactive commands (keywords, arc invite): it may use the reserve, and instead
   * of failing when the minute window is full it waits for it (up to `maxWaitMs`).
   */
  interactiveClient(workspace: string, maxWaitMs = 5 * 60_000): AnalyticsClient {
    const ws = this.config.workspaces.find((w) => w.id === workspace);
    if (ws === undefined) throw new Error(`no workspace "${workspace}" in the config`);
    const limits: BudgetLimits = { perMinute: ws.plan.perMinute, perMonth: ws.plan.perMonth };
    const client = this.buildClient(ws, async () => {
      const deadline = this.clock.now() + maxWaitMs;
      for (;;) {
        const decision = await this.budget.tryAcquire(ws.id, limits);
        if (decision.granted) return;
        if (decision.reason === 'month' || decision.retryAtMs > deadline) {
          throw new BudgetExhaustedError(ws.id, decision, this.clock.now());
        }
        await new Promise((resolve) =>
          setTimeout(resolve, realDelayMs(this.clock, decision.retryAtMs - this.clock.now())),
        );
      }
    });
    this.extraClients.push(client);
    return client;
  }

  private buildClient(ws: WorkspaceConfig, beforeRequest: () => Promise<void>): AnalyticsClient {
    const extra = this.clientOptions;
    return createAnalyticsClient({
      baseUrl: ws.baseUrl,
      apiKey: ws.apiKey.reveal(),
      version: this.version,
      now: () => this.clock.now(),
      contract: workspaceContract(ws),
      beforeRequest,
      onResponse: (res) => {
        this.metrics.apiRequest(ws.id, res.endpoint, res.status, res.durationMs);
        // The API's own count wins when ours is lower (Redis lost its data, another tool shares the key).
        const { limit, remaining, quotaLimit, quotaRemaining } = res.rateLimit;
        // Likewise its count of the current minute: the window may be short after a Redis crash.
        if (limit !== undefined && remaining !== undefined && limit >= remaining) {
          this.budget.syncMinuteUsed(ws.id, limit - remaining).catch((error: unknown) => {
            this.logger.warn(
              { workspace: ws.id, err: error },
              'could not sync the minute window with the API',
            );
          });
        }
        if (quotaLimit !== undefined && quotaRemaining !== undefined && quotaLimit >= quotaRemaining) {
          this.budget.syncMonthUsed(ws.id, quotaLimit - quotaRemaining).catch((error: unknown) => {
            this.logger.warn({ workspace: ws.id, err: error }, 'could not sync the month count with the API');
          });
        }
      },
      ...(extra.dispatcher === undefined ? {} : { dispatcher: extra.dispatcher }),
      ...(extra.timeouts === undefined ? {} : { timeouts: extra.timeouts }),
      ...(extra.transientRetryDelayMs === undefined
        ? {}
        : { transientRetryDelayMs: extra.transientRetryDelayMs }),
    });
  }

  /** The current plan of every workspace, from learned costs and this month's use. */
  async plans(): Promise<Map<string, Plan>> {
    const plans = new Map<string, Plan>();
    const now = this.clock.now();
    for (const ws of this.config.workspaces) {
      const targets = this.registry.all(ws.id);
      // All at once (ioredis pipelines them): one by one cost 0.2 s on 2,000 targets.
      const healths = await Promise.all(targets.map((target) => this.store.getHealth(target.ref)));
      const costs = new Map(targets.map((target, i) => [target.ref.id, healths[i]?.costPerPoll ?? null]));
      const usage = await this.budget.usage(ws.id);
      plans.set(ws.id, planWorkspace(ws, targets, costs, usage.monthUsed, now));
    }
    return plans;
  }

  /** Makes the poll schedulers match the config and the current plan (one process at a time). */
  async reconcile(): Promise<ReconcileReport> {
    const plans = await this.plans();
    const desired = [...plans].flatMap(([workspace, plan]) => schedulesFromPlan(workspace, plan, this.clock));
    return reconcilePollSchedulers({
      queue: this.pollQueue,
      redis: this.redis,
      lockKey: `${this.prefix}:reconcile-lock`,
      desired,
      logger: this.logger.child({ component: 'reconciler' }),
    });
  }

  async close(): Promise<void> {
    // Against a Redis that never answered, QUIT (and a queue's close) would wait for it forever:
    // drop the connection first, so commands like `status` end with their one-line error.
    const reachable = this.redis.status === 'ready';
    if (!reachable) this.redis.disconnect();
    await this.pollQueue.close();
    await this.deliverQueue.close();
    for (const client of [...this.clients.values(), ...this.extraClients]) await client.close();
    for (const notifier of this.notifiers.values()) await notifier.close?.();
    await this.smtp.closeAll();
    if (reachable && this.redis.status !== 'end')
      await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** Background polls keep the workspace's reserve free for interactive commands (keywords, arc invite). */
export function pollLimits(ws: WorkspaceConfig): BudgetLimits {
  return {
    perMinute: ws.plan.perMinute,
    perMonth: ws.plan.perMonth,
    // The epsilon keeps 100,000 × (1 − 0.34) at 66,000, as the planner counts it, not 65,999.
    monthCeiling: Math.floor(ws.plan.perMonth * (1 - ws.reserve) + 1e-6),
  };
}

/** Counts alerts by kind as they are handed to delivery. */
function countingSink(sink: AlertSink, metrics: Metrics): AlertSink {
  return {
    async enqueue(alerts) {
      await sink.enqueue(alerts);
      const byKind = new Map<string, number>();
      for (const alert of alerts) byKind.set(alert.kind, (byKind.get(alert.kind) ?? 0) + 1);
      for (const [kind, count] of byKind) metrics.alerts(kind, count);
    },
  };
}
