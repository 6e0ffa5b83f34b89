/** A poll engine wired to a real simulator and real Redis, driven one poll at a time by tests. */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createAnalyticsClient } from '../../src/api/index.ts';
import { pollLimits } from '../../src/budget/limits.ts';
import { PauseEpisodes } from '../../src/budget/pause-episode.ts';
import { budgetGate, RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { workspaceContract } from '../../src/config/contract.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { ShelfwatchConfig } from '../../src/config/schema.ts';
import { type DeliverQueueData, QueueAlertSink } from '../../src/deliver/enqueue.ts';
import type { Alert } from '../../src/model/alert.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { type AlertSink, type PollDeps, type PollResult, processPoll } from '../../src/poll/processor.ts';
import { ConfigTargetRegistry } from '../../src/poll/registry.ts';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { RedisSnapshotStore } from '../../src/snapshot/store.ts';

export function parseOrThrow(raw: unknown): ShelfwatchConfig {
  const result = parseConfig(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.problems, null, 2));
  return result.config;
}

/** Collects what the processor enqueues, in order. */
export class CapturingSink implements AlertSink {
  readonly alerts: Alert[] = [];
  async enqueue(alerts: readonly Alert[]): Promise<void> {
    this.alerts.push(...alerts);
  }
  ofKind(kind: Alert['kind']): Alert[] {
    return this.alerts.filter((a) => a.kind === kind);
  }
}

export interface Harness {
  deps: PollDeps;
  sink: AlertSink;
  store: RedisSnapshotStore;
  config: ShelfwatchConfig;
  poll(targetId: string, pollTimeMs?: number): Promise<PollResult>;
  close(): Promise<void>;
}

export function createHarness(options: {
  sim: RunningSimulator;
  redis: Redis;
  prefix: string;
  config: ShelfwatchConfig;
  sink?: AlertSink;
  deliveryQueue?: Queue<DeliverQueueData>;
}): Harness {
  const { sim, redis, prefix, config } = options;
  const clock = sim.clock;
  const budget = new RedisRequestBudget({ redis, prefix, clock });
  const store = new RedisSnapshotStore({ redis, prefix });
  const ws = config.workspaces[0];
  if (ws === undefined) throw new Error('harness needs one workspace');
  const client = createAnalyticsClient({
    baseUrl: sim.url,
    apiKey: ws.apiKey.reveal(),
    version: 'test',
    transientRetryDelayMs: 0,
    timeouts: { headersMs: 2_000, bodyMs: 2_000 },
    now: () => clock.now(),
    // The workspace's api.contract, as the runtime builds its client.
    contract: workspaceContract(ws),
    beforeRequest: budgetGate(budget, ws.id, pollLimits(ws)),
  });
  const sink =
    options.sink ??
    (options.deliveryQueue === undefined
      ? new CapturingSink()
      : new QueueAlertSink(options.deliveryQueue, () => [{ channelId: 'log', hideLowStarText: false }]));
  const deps: PollDeps = {
    clientFor: () => client,
    store,
    budget,
    pauses: new PauseEpisodes(redis, prefix),
    registry: new ConfigTargetRegistry(config),
    alerts: sink,
    clock,
    logger: silentLogger(),
  };
  let lastPoll = clock.now();
  return {
    deps,
    sink,
    store,
    config,
    // Each poll gets a later time than the last, as the scheduler's polls would.
    poll(targetId, pollTimeMs) {
      lastPoll = pollTimeMs ?? Math.max(lastPoll + 1_000, clock.now());
      return processPoll(
        deps,
        { workspace: ws.id, targetId },
        { signal: new AbortController().signal, pollTimeMs: lastPoll },
      );
    },
    close: () => client.close(),
  };
}
