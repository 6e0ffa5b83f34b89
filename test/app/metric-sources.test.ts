import { Queue, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { budgetSource, channelSource, queueSource, whenReady } from '../../src/app/metric-sources.ts';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { ChannelHealth } from '../../src/deliver/channel-health.ts';
import { type BudgetSample, Metrics } from '../../src/ops/metrics.ts';
import { systemClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { family, sampleValue } from '../ops/exposition.ts';

const prefix = testPrefix('ops-metrics');
const redis = testRedis(prefix);
const queues: Queue[] = [];
afterAll(async () => {
  for (const queue of queues) await queue.close();
});

function bare(sources: ConstructorParameters<typeof Metrics>[0]): Metrics {
  return new Metrics({ defaultMetrics: false, ...sources });
}

/** Resolves when `predicate` holds, polling; fails after `ms` (no fixed sleeps). */
async function until(predicate: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('gauges read from Redis at scrape time', () => {
  it('budget: minute and month use, what is left, and pauses, per workspace', async () => {
    const budget = new RedisRequestBudget({ redis, prefix, clock: systemClock });
    const limits = { perMinute: 10, perMonth: 1_000, monthCeiling: 900 };
    const metrics = bare({
      sources: {
        budget: budgetSource(budget, [
          { id: 'ws-a', limits },
          { id: 'ws-b', limits },
        ]),
      },
    });
    for (let i = 0; i < 3; i++) expect((await budget.tryAcquire('ws-a', limits)).granted).toBe(true);
    await budget.pauseUntil('ws-b', Date.now() + 60_000, 'rate_limited');
    const text = await metrics.text();
    expect(family(text, 'shelfwatch_budget_minute_used')).toEqual([
      { labels: { workspace: 'ws-a' }, value: 3 },
      { labels: { workspace: 'ws-b' }, value: 0 },
    ]);
    expect(family(text, 'shelfwatch_budget_month_used')).toEqual([
      { labels: { workspace: 'ws-a' }, value: 3 },
      { labels: { workspace: 'ws-b' }, value: 0 },
    ]);
    expect(family(text, 'shelfwatch_budget_month_remaining')).toEqual([
      { labels: { workspace: 'ws-a' }, value: 897 },
      { labels: { workspace: 'ws-b' }, value: 900 },
    ]);
    expect(family(text, 'shelfwatch_budget_paused')).toEqual([
      { labels: { workspace: 'ws-a' }, value: 0 },
      { labels: { workspace: 'ws-b' }, value: 1 },
    ]);
    await budget.resume('ws-b');
    expect(sampleValue(await metrics.text(), 'shelfwatch_budget_paused', { workspace: 'ws-b' })).toBe(0);
  });

  it('queues: waiting, active, delayed and failed jobs of each queue', async () => {
    const poll = new Queue('poll', { connection: redis, prefix });
    const deliver = new Queue('deliver', { connection: redis, prefix });
    queues.push(poll, deliver);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    const worker = new Worker(
      'poll',
      async (job) => {
        if (job.name === 'boom') throw new Error('boom');
        if (job.name === 'hold') {
          holding = true;
          await gate;
        }
      },
      { connection: redis, prefix, concurrency: 1 },
    );
    let failed = 0;
    worker.on('failed', () => failed++);
    try {
      await poll.add('boom', {}, { attempts: 1 });
      await poll.add('hold', {});
      await poll.add('later', {});
      await poll.add('delayed', {}, { delay: 3_600_000 });
      await deliver.add('admit', {});
      await until(() => failed === 1 && holding);
      const metrics = bare({ sources: { queues: queueSource({ poll, deliver }) } });
      expect(family(await metrics.text(), 'shelfwatch_queue_jobs')).toEqual([
        { labels: { queue: 'poll', state: 'waiting' }, value: 1 },
        { labels: { queue: 'poll', state: 'active' }, value: 1 },
        { labels: { queue: 'poll', state: 'delayed' }, value: 1 },
        { labels: { queue: 'poll', state: 'failed' }, value: 1 },
        { labels: { queue: 'deliver', state: 'waiting' }, value: 1 },
        { labels: { queue: 'deliver', state: 'active' }, value: 0 },
        { labels: { queue: 'deliver', state: 'delayed' }, value: 0 },
        { labels: { queue: 'deliver', state: 'failed' }, value: 0 },
      ]);
    } finally {
      release();
      await worker.close();
    }
  });

  it('channels: every configured channel, 1 while disabled', async () => {
    const health = new ChannelHealth(redis, prefix);
    const metrics = bare({
      sources: {
        channels: channelSource(['slack-launch', 'email-author'], (id) => health.disabledReason(id)),
      },
    });
    await health.disable('slack-launch', 'Slack answered 410 channel_is_archived');
    expect(family(await metrics.text(), 'shelfwatch_channel_disabled')).toEqual([
      { labels: { channel: 'slack-launch' }, value: 1 },
      { labels: { channel: 'email-author' }, value: 0 },
    ]);
    await health.enable('slack-launch');
    expect(
      sampleValue(await metrics.text(), 'shelfwatch_channel_disabled', { channel: 'slack-launch' }),
    ).toBe(0);
  });
});

describe('sources are read at every scrape and may fail alone', () => {
  it('reads each source once per scrape, so values follow the process', async () => {
    let running = 2;
    let calls = 0;
    const metrics = bare({
      sources: {
        workersRunning: () => {
          calls++;
          return running;
        },
      },
    });
    expect(sampleValue(await metrics.text(), 'shelfwatch_workers_running')).toBe(2);
    running = 1;
    expect(sampleValue(await metrics.text(), 'shelfwatch_workers_running')).toBe(1);
    expect(calls).toBe(2);
  });

  it('a throwing source leaves its gauges empty (not stale) and the rest of the scrape intact', async () => {
    let budgetFails = false;
    const rows: BudgetSample[] = [{ workspace: 'ws-a', minuteUsed: 1, monthUsed: 5, paused: false }];
    const metrics = bare({
      sources: {
        budget: () => {
          if (budgetFails) throw new Error('Redis is down');
          return rows;
        },
        channels: async () => [{ channel: 'slack-launch', disabled: false }],
        workersRunning: () => {
          throw new Error('not yet');
        },
      },
    });
    metrics.poll('ws-a', 'book', 'ok');
    const first = await metrics.text();
    expect(sampleValue(first, 'shelfwatch_budget_month_used', { workspace: 'ws-a' })).toBe(5);
    // Never a made-up 0 for "unknown": the sample is simply absent.
    expect(family(first, 'shelfwatch_workers_running')).toEqual([]);
    expect(first).toContain('# TYPE shelfwatch_workers_running gauge');

    budgetFails = true;
    const second = await metrics.text();
    for (const name of [
      'shelfwatch_budget_minute_used',
      'shelfwatch_budget_month_used',
      'shelfwatch_budget_month_remaining',
      'shelfwatch_budget_paused',
    ]) {
      expect(family(second, name)).toEqual([]);
    }
    expect(sampleValue(second, 'shelfwatch_channel_disabled', { channel: 'slack-launch' })).toBe(0);
    expect(
      sampleValue(second, 'shelfwatch_polls_total', { workspace: 'ws-a', kind: 'book', outcome: 'ok' }),
    ).toBe(1);
  });

  it('a source that never answers is skipped after collectTimeoutMs', async () => {
    const metrics = bare({
      collectTimeoutMs: 100,
      sources: {
        queues: () => new Promise(() => {}),
        workersRunning: () => 2,
      },
    });
    const started = Date.now();
    const text = await metrics.text();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(family(text, 'shelfwatch_queue_jobs')).toEqual([]);
    expect(sampleValue(text, 'shelfwatch_workers_running')).toBe(2);
  });

  it('whenReady skips a source without calling it while the connection is down', async () => {
    let connected = false;
    let calls = 0;
    const metrics = bare({
      sources: {
        channels: whenReady(
          () => connected,
          () => {
            calls++;
            return [{ channel: 'slack-launch', disabled: true }];
          },
        ),
      },
    });
    expect(family(await metrics.text(), 'shelfwatch_channel_disabled')).toEqual([]);
    expect(calls).toBe(0);
    connected = true;
    expect(family(await metrics.text(), 'shelfwatch_channel_disabled')).toEqual([
      { labels: { channel: 'slack-launch' }, value: 1 },
    ]);
    expect(calls).toBe(1);
  });

  it('a malformed answer clears the whole family instead of leaving half of it', async () => {
    const metrics = bare({
      sources: {
        budget: () =>
          [
            { workspace: 'ws-a', minuteUsed: 1, monthUsed: 5, paused: false },
            { workspace: 'ws-b', minuteUsed: 'many', monthUsed: 5, paused: false },
          ] as unknown as BudgetSample[], // a source typed loosely at run time, e.g. parsed JSON
      },
    });
    expect(family(await metrics.text(), 'shelfwatch_budget_minute_used')).toEqual([]);
  });
});
