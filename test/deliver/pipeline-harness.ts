/** A real delivery pipeline (BullMQ workers on real Redis) with channels a test chooses. */
import { onTestFinished } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import type { DeliveryError, Notifier, OutgoingMessage } from '../../src/channels/notifier.ts';
import type { ShelfwatchConfig } from '../../src/config/schema.ts';
import type { ChannelSettings } from '../../src/deliver/processor.ts';
import type { Alert } from '../../src/model/alert.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import type { Clock } from '../../src/util/clock.ts';
import { type LooseAlert, looseAlert } from '../helpers/alert-facts.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

/** Records every message it is given; can be told to fail. */
export class CapturingNotifier implements Notifier {
  readonly type = 'log' as const;
  readonly messages: { at: number; message: OutgoingMessage }[] = [];
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  failWith: ((message: OutgoingMessage) => DeliveryError | undefined) | undefined;
  /** Simulated send time: the message lands (is recorded) when the send ends. */
  sendTimeMs: ((message: OutgoingMessage) => number) | undefined;

  constructor(readonly id: string) {}

  async send(message: OutgoingMessage): Promise<void> {
    const error = this.failWith?.(message);
    if (error !== undefined) throw error;
    const sendTime = this.sendTimeMs?.(message) ?? 0;
    if (sendTime > 0) await new Promise((resolve) => setTimeout(resolve, sendTime));
    this.messages.push({ at: Date.now(), message });
    for (const waiter of [...this.waiters]) {
      if (this.alertCount() >= waiter.count) {
        waiter.resolve();
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
      }
    }
  }

  alertCount(): number {
    return this.messages.reduce((sum, m) => sum + m.message.alerts.length, 0);
  }

  fingerprints(): string[] {
    return this.messages.flatMap((m) => m.message.alerts.map((a) => a.fingerprint));
  }

  /** Resolves once `count` alerts have arrived in all; rejects at the deadline. */
  waitForAlerts(count: number, timeoutMs: number): Promise<void> {
    if (this.alertCount() >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.id}: ${this.alertCount()} of ${count} alerts within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}

export function settings(overrides: Partial<ChannelSettings> & { paceKey: string }): ChannelSettings {
  return { groupWaitMs: 200, groupIntervalMs: 200, minIntervalMs: 0, ...overrides };
}

export function makeAlert(n: number, overrides: Partial<LooseAlert> = {}): Alert {
  return looseAlert({
    fingerprint: `fp${String(n).padStart(6, '0')}${overrides.workspace ?? 'ws'}${overrides.kind ?? ''}`,
    workspace: 'ws',
    ruleId: 'rule',
    kind: 'keyword_rank_drop',
    severity: 'warning',
    status: 'firing',
    subject: { asin: 'B0CJ4XQ2ZK', marketplace: 'US', keyword: `keyword ${n}` },
    title: `keyword ${n} fell`,
    facts: {},
    observedAt: 1_800_000_000_000 + n,
    ...overrides,
  });
}

export async function startPipeline(options: {
  prefix: string;
  /** Each is configured as a log channel; its notifier is the one given (a capture, a real Slack one). */
  channels: Notifier[];
  settings: Map<string, ChannelSettings>;
  clock?: Clock;
  attempts?: number;
}) {
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix: options.prefix },
    workspaces: [{ id: 'ws', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_unused', campaigns: [{ id: 'c' }] }],
    channels: options.channels.map((c) => ({ id: c.id, type: 'log' })),
  });
  const runtime = new Runtime({
    config,
    logger: silentLogger(),
    version: 'test',
    notifiers: new Map(options.channels.map((c) => [c.id, c])),
    channelSettings: options.settings,
    delivery: { attempts: options.attempts ?? 3, backoffMs: 100, keepMs: 3_600_000 },
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  await runtime.connect();
  const shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => runtime.close());
  await startWorkers(runtime, shutdown, { reconcile: false });
  return {
    runtime,
    stop: () => shutdown.run(5_000),
    send: (alerts: Alert[]) => runtime.pollDeps.alerts.enqueue(alerts),
  };
}

/** A whole running process (reconciler, poll, delivery workers) whose one channel is `capture`. */
/**
 * The whole process (runtime and every worker) on `config`, its one channel `capture` captured;
 * stopped when the test ends.
 */
export async function capturedRuntimeForTest(config: ShelfwatchConfig, logger = silentLogger()) {
  const capture = new CapturingNotifier('capture');
  const runtime = new Runtime({
    config,
    logger,
    version: 'test',
    notifiers: new Map([[capture.id, capture]]),
    channelSettings: new Map([[capture.id, settings({ paceKey: capture.id })]]),
  });
  await runtime.connect();
  const shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => runtime.close());
  await startWorkers(runtime, shutdown);
  onTestFinished(() => shutdown.run(5_000));
  return { runtime, capture };
}

/** startPipeline on a fresh key prefix of the test Redis, each channel paced on its own, stopped when the test ends. */
export async function pipelineForTest(name: string, channels: Notifier[], attempts?: number) {
  const prefix = testPrefix(name);
  testRedis(prefix);
  const started = await startPipeline({
    prefix,
    channels,
    settings: new Map(channels.map((c) => [c.id, settings({ paceKey: c.id })])),
    ...(attempts === undefined ? {} : { attempts }),
  });
  onTestFinished(started.stop);
  return { ...started, prefix };
}
