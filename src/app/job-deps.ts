/**
 * The dependencies of each job, built from the process's shared parts (`Runtime`): what the poll,
 * the delivery and the digest processors receive. Built once; the jobs in src/jobs/ only run them.
 */
import type { Queue } from 'bullmq';
import { walkWithinBudget } from '../budget/gate.ts';
import { pollLimits } from '../budget/limits.ts';
import { PauseEpisodes } from '../budget/pause-episode.ts';
import type { RedisRequestBudget } from '../budget/request-budget.ts';
import type { Notifier } from '../channels/notifier.ts';
import type { SmtpPool } from '../channels/smtp-pool.ts';
import { type ShelfwatchConfig, workspaceOf } from '../config/schema.ts';
import {
  type ChannelHealth,
  channelDisabledAlert,
  channelSettings,
  sharedTimeZone,
} from '../deliver/channel-health.ts';
import { DedupLog } from '../deliver/dedup.ts';
import {
  DEFAULT_DELIVERY_SETTINGS,
  type DeliverQueueData,
  type DeliveryJobSettings,
  jobRetention,
  QueueAlertSink,
} from '../deliver/enqueue.ts';
import { GroupBuffer } from '../deliver/groups.ts';
import { ChannelPacer } from '../deliver/pacing.ts';
import type { ChannelSettings, DeliveryDeps } from '../deliver/processor.ts';
import { createRouter } from '../deliver/routing.ts';
import type { DigestDeps } from '../digest/build.ts';
import { DigestStateStore } from '../digest/state.ts';
import type { AlertLog } from '../history/alert-log.ts';
import { RedisHistoryStore } from '../history/store.ts';
import type { Logger } from '../ops/logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { TargetLease } from '../poll/lease.ts';
import type { AlertSink, PollDeps } from '../poll/processor.ts';
import type { ConfigTargetRegistry } from '../poll/registry.ts';
import type { StateLoss } from '../poll/state-loss.ts';
import { TitleCache } from '../poll/title-cache.ts';
import { configAuthors, SilenceGate } from '../silence/gate.ts';
import { messageLinks } from '../silence/mute-link.ts';
import type { SilenceStore } from '../silence/store.ts';
import type { RedisSnapshotStore } from '../snapshot/store.ts';
import { type Clock, realDelayMs } from '../util/clock.ts';
import { homePrefix, type KeyPrefix } from '../util/redis-keys.ts';
import type { ApiClients } from './api-clients.ts';
import type { RedisConnection } from './redis-connection.ts';

/** The shared parts of a process that job dependencies are made of. */
export interface JobParts {
  config: ShelfwatchConfig;
  logger: Logger;
  clock: Clock;
  redis: RedisConnection;
  /** Where workspace keys go: one prefix, or each workspace's shard's (config/shards.ts). */
  keys: KeyPrefix;
  /** The prefix of the shard these deps serve: its queues, its delivery groups and dedup log. */
  prefix: string;
  budget: RedisRequestBudget;
  store: RedisSnapshotStore;
  registry: ConfigTargetRegistry;
  clients: ApiClients;
  metrics: Metrics;
  deliverQueue: Queue<DeliverQueueData>;
  alertLog: AlertLog;
  stateLoss: StateLoss;
}

export function pollDepsOf(
  parts: JobParts,
  delivery: DeliveryJobSettings = DEFAULT_DELIVERY_SETTINGS,
): PollDeps {
  const { config, redis, keys, budget, metrics } = parts;
  return {
    clientFor: (workspace) => parts.clients.client(workspace),
    store: parts.store,
    budget,
    pauses: new PauseEpisodes(redis, keys),
    registry: parts.registry,
    alerts: countingSink(
      new QueueAlertSink(parts.deliverQueue, createRouter(config), delivery, parts.alertLog),
      metrics,
    ),
    clock: parts.clock,
    logger: parts.logger.child({ component: 'poll' }),
    lease: new TargetLease(redis, keys),
    memory: parts.stateLoss.memory,
    stateLoss: parts.stateLoss,
    titles: new TitleCache(redis, keys),
    reserveWalk: (workspace, costPerPoll, signal, walk) =>
      walkWithinBudget(
        {
          budget,
          workspace,
          limits: pollLimits(workspaceOf(config, workspace)),
          costPerPoll,
          signal,
          onWasted: (requests) => metrics.apiRequestsWasted(workspace, requests),
        },
        walk,
      ),
    history: new RedisHistoryStore({
      redis,
      prefix: keys,
      retentionMs: config.history.retention,
      hourlyMs: config.history.hourly,
    }),
  };
}

/** Messages carry mute links only when the console has a public address and a secret signs them. */
export function muteLinkSettings(
  config: ShelfwatchConfig,
): { publicUrl: string; secret: string } | undefined {
  const { publicUrl, linkSecret } = config.console;
  if (publicUrl === undefined || linkSecret === undefined) return undefined;
  return { publicUrl, secret: linkSecret.reveal() };
}

export function deliveryDepsOf(
  parts: JobParts,
  channels: {
    notifiers: Map<string, Notifier>;
    health: ChannelHealth;
    silences: SilenceStore;
    settings?: Map<string, ChannelSettings> | undefined;
    delivery?: DeliveryJobSettings | undefined;
  },
): DeliveryDeps {
  const { config, redis, prefix, keys, clock, metrics, deliverQueue, logger } = parts;
  const delivery = channels.delivery ?? DEFAULT_DELIVERY_SETTINGS;
  const router = createRouter(config);
  const links = muteLinkSettings(config);
  return {
    ...(links === undefined
      ? {}
      : {
          links: (alerts, channelId, messageId, nowMs) =>
            messageLinks(links, alerts, channelId, messageId, nowMs),
        }),
    silences: new SilenceGate(channels.silences, config.muteWindows, configAuthors(config), (channel, n) =>
      metrics.silenced(channel, n),
    ),
    channels: channels.notifiers,
    settings: channels.settings ?? channelSettings(config.channels, sharedTimeZone(config.workspaces)),
    groups: new GroupBuffer(redis, prefix),
    // A channel's pace is the deployment's, whichever shard sends: on the home prefix.
    pacer: new ChannelPacer(redis, homePrefix(keys), clock),
    dedup: new DedupLog(redis, prefix),
    clock,
    logger: logger.child({ component: 'deliver' }),
    scheduleFlush: async (jobId, data, runAtMs) => {
      await deliverQueue.add('flush', data, {
        jobId,
        delay: realDelayMs(clock, runAtMs - clock.now()),
        ...jobRetention(delivery),
      });
    },
    disableChannel: async (channelId, error) => {
      await channels.health.disable(channelId, error.message.slice(0, 300));
      const alert = channelDisabledAlert(channelId, error, clock.now());
      // Told through every other channel the alert would reach; never through the broken one.
      const others = new QueueAlertSink(deliverQueue, (a) =>
        router(a).filter((t) => t.channelId !== channelId),
      );
      await others.enqueue([alert]);
      logger.error({ channelId, status: error.status }, 'channel disabled after a permanent refusal');
    },
    isDisabled: (channelId) => channels.health.disabledReason(channelId),
    alertLog: parts.alertLog,
  };
}

/** The digest's dependencies; `smtp` is the process's shared pool (the demo passes its own). */
export function digestDepsOf(
  parts: Pick<JobParts, 'config' | 'clients' | 'store' | 'budget' | 'redis' | 'keys' | 'clock' | 'logger'> & {
    pollDeps: Pick<PollDeps, 'reserveWalk'>;
    /** Read per send: a new config revision replaces the map. */
    notifiers?: ReadonlyMap<string, Notifier>;
  },
  smtp: Pick<SmtpPool, 'sendMail'>,
): DigestDeps {
  return {
    config: parts.config,
    clientFor: (workspace) => parts.clients.client(workspace),
    store: parts.store,
    budget: parts.budget,
    redis: parts.redis,
    prefix: parts.keys,
    state: new DigestStateStore(parts.redis, parts.keys),
    smtp,
    notifierFor: (channelId) => parts.notifiers?.get(channelId),
    clock: parts.clock,
    logger: parts.logger.child({ component: 'digest' }),
    // The sales walk reserves its pages as a poll's walk does.
    reserveWalk: parts.pollDeps.reserveWalk,
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
