import { describe, it, type TestContext } from 'vitest';
import { DeliveryError } from '../../src/channels/notifier.ts';
import { createSlackNotifier } from '../../src/channels/slack.ts';
import { Secret } from '../../src/config-kit/secret.ts';
import { channelSettings } from '../../src/deliver/channel-health.ts';
import { listDeadLetters } from '../../src/deliver/dead-letters.ts';
import { GroupBuffer, groupHash, orphanedGroups } from '../../src/deliver/groups.ts';
import { flushJobId, flushOrphanedGroups, groupKeyOf } from '../../src/deliver/processor.ts';
import type { AlertKind } from '../../src/model/alert.ts';
import { type Reply, startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';
import { CapturingNotifier, makeAlert, settings, startPipeline } from './pipeline-harness.ts';

/**
 * A pipeline on its own prefix, stopped when its test ends (the test's own hook: the tests whose
 * timing only has lower bounds run at once, and a file-wide afterEach would stop the others' too).
 */
async function pipeline(
  onTestFinished: TestContext['onTestFinished'],
  name: string,
  ...args: Parameters<typeof startPipeline>
) {
  const prefix = testPrefix(name);
  testRedis(prefix);
  const started = await startPipeline({ ...args[0], prefix });
  onTestFinished(started.stop);
  return started;
}

// Each test has its own prefix and pace keys; the two describes run at once. The first two tests
// hold a group window to an upper bound (40 alerts in one 500 ms window; reviews out within 2 s)
// and run one after the other; the rest check lower bounds, counts and dead letters, and run at once
// (the storm's ten paced seconds cover them).
describe.concurrent('grouping and pacing', () => {
  it.sequential('alerts of one group within the window become one message', async ({
    expect,
    onTestFinished,
  }) => {
    const slack = new CapturingNotifier('slack');
    const { send } = await pipeline(onTestFinished, 'group', {
      prefix: '',
      channels: [slack],
      settings: new Map([['slack', settings({ paceKey: 'slack', groupWaitMs: 500 })]]),
    });
    await send(Array.from({ length: 40 }, (_, i) => makeAlert(i)));
    await slack.waitForAlerts(40, 10_000);
    expect(slack.messages).toHaveLength(1);
    expect(slack.messages[0]?.message.totalCount).toBe(40);
  });

  it.sequential("a kind's own group window from the config: reviews go out at once while rank drops still wait", async ({
    expect,
    onTestFinished,
  }) => {
    const config = parseOrThrow({
      workspaces: [
        { id: 'ws', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_unused', campaigns: [{ id: 'c' }] },
      ],
      channels: [
        { id: 'slack', type: 'log', groupWait: '3s', groupWindows: { review_new: { groupWait: '100ms' } } },
      ],
    });
    const configured = channelSettings(config.channels).get('slack');
    expect(configured?.groupWindows).toEqual({ review_new: { groupWaitMs: 100 } });
    const slack = new CapturingNotifier('slack');
    const { send } = await pipeline(onTestFinished, 'group-windows', {
      prefix: '',
      channels: [slack],
      settings: new Map([['slack', { ...configured!, paceKey: 'slack', minIntervalMs: 0 }]]),
    });
    const sentAt = Date.now();
    await send([
      makeAlert(1),
      makeAlert(2, { kind: 'review_new' }),
      makeAlert(3),
      makeAlert(4, { kind: 'review_new' }),
    ]);
    await slack.waitForAlerts(4, 10_000);
    const [first, second] = slack.messages;
    expect(first?.message.alerts.map((a) => a.kind)).toEqual(['review_new', 'review_new']);
    expect(second?.message.alerts.map((a) => a.kind)).toEqual(['keyword_rank_drop', 'keyword_rank_drop']);
    expect((first?.at ?? 0) - sentAt).toBeLessThan(2_000);
    expect((second?.at ?? 0) - sentAt).toBeGreaterThanOrEqual(2_900);
  });

  it.concurrent('a storm of 1,000 alerts to one webhook: one message a second at most, every alert once', async ({
    expect,
    onTestFinished,
  }) => {
    const slack = new CapturingNotifier('slack');
    const { send } = await pipeline(onTestFinished, 'storm', {
      prefix: '',
      channels: [slack],
      settings: new Map([['slack', settings({ paceKey: 'hook-1', minIntervalMs: 1_100, groupWaitMs: 300 })]]),
    });
    const kinds: AlertKind[] = [
      'keyword_rank_drop',
      'bsr_worsened',
      'review_new',
      'royalty_change',
      'sales_revision',
    ];
    const alerts = Array.from({ length: 1_000 }, (_, i) =>
      makeAlert(i, { kind: kinds[i % kinds.length] ?? 'review_new', workspace: `ws${i % 2}` }),
    );
    await send(alerts);
    await slack.waitForAlerts(1_000, 60_000);
    // Every alert accounted for: each fingerprint in exactly one message.
    expect(slack.fingerprints().sort()).toEqual(alerts.map((a) => a.fingerprint).sort());
    // 5 kinds × 2 workspaces = 10 groups → 10 messages, paced a second apart.
    expect(slack.messages).toHaveLength(10);
    const times = slack.messages.map((m) => m.at);
    for (let i = 1; i < times.length; i += 1)
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(1_000);
  }, 90_000);

  it.concurrent('a send slower than the interval still leaves the whole interval before the next lands', async ({
    expect,
    onTestFinished,
  }) => {
    const slack = new CapturingNotifier('slack');
    // The first message takes 1.5 s to land. Paced from the start of a send, the next one could
    // start (and land) while the first is still in flight; paced from the end of the previous
    // send only, a 0.9 s send let the next land 0.2 s after it.
    let first = true;
    slack.sendTimeMs = () => {
      const ms = first ? 1_500 : 0;
      first = false;
      return ms;
    };
    const { send } = await pipeline(onTestFinished, 'slow-send', {
      prefix: '',
      channels: [slack],
      settings: new Map([
        ['slack', settings({ paceKey: 'hook-slow', minIntervalMs: 1_100, groupWaitMs: 200 })],
      ]),
    });
    await send([
      makeAlert(1, { kind: 'review_new' }),
      makeAlert(2, { kind: 'bsr_worsened' }),
      makeAlert(3, { kind: 'royalty_change' }),
    ]);
    await slack.waitForAlerts(3, 30_000);
    const landed = slack.messages.map((m) => m.at).sort((a, b) => a - b);
    expect(landed).toHaveLength(3);
    for (let i = 1; i < landed.length; i += 1) {
      expect((landed[i] ?? 0) - (landed[i - 1] ?? 0)).toBeGreaterThanOrEqual(1_100);
    }
  }, 45_000);
});

describe.concurrent('failures', () => {
  it.concurrent('a 429 with Retry-After is honoured without spending an attempt', async ({
    expect,
    onTestFinished,
  }) => {
    const slack = new CapturingNotifier('slack');
    let refused = 0;
    slack.failWith = () => {
      if (refused >= 3) return undefined;
      refused += 1;
      return new DeliveryError('429', {
        channelId: 'slack',
        retryable: true,
        retryAfterMs: 1_000,
        status: 429,
      });
    };
    const { send } = await pipeline(onTestFinished, 'ratelimited', {
      prefix: '',
      attempts: 1,
      channels: [slack],
      settings: new Map([['slack', settings({ paceKey: 'hook-2' })]]),
    });
    const started = Date.now();
    await send([makeAlert(1)]);
    await slack.waitForAlerts(1, 15_000);
    // Three refusals each waited out a second; with attempts: 1 a counted retry would have failed.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(refused).toBe(3);
  });

  it.concurrent('a channel that keeps failing lands in the dead letters with its last error; others are unaffected', async ({
    expect,
    onTestFinished,
  }) => {
    const broken = new CapturingNotifier('broken');
    const healthy = new CapturingNotifier('healthy');
    let tries = 0;
    broken.failWith = () => {
      tries += 1;
      return new DeliveryError(`SMTP 451 try ${tries}`, {
        channelId: 'broken',
        retryable: true,
        status: 451,
      });
    };
    const { send, runtime } = await pipeline(onTestFinished, 'dlq', {
      prefix: '',
      attempts: 3,
      channels: [broken, healthy],
      settings: new Map([
        ['broken', settings({ paceKey: 'broken' })],
        ['healthy', settings({ paceKey: 'healthy' })],
      ]),
    });
    await send([makeAlert(7)]);
    await healthy.waitForAlerts(1, 10_000);
    const deadline = Date.now() + 15_000;
    let failed = await runtime.deliverQueue.getFailed();
    while (failed.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      failed = await runtime.deliverQueue.getFailed();
    }
    expect(failed).toHaveLength(1);
    expect(failed[0]?.failedReason).toBe('SMTP 451 try 3');
    expect(failed[0]?.attemptsMade).toBe(3);
    expect(healthy.messages).toHaveLength(1);
  });

  it.concurrent('a permanent refusal disables the channel and tells the others', async ({
    expect,
    onTestFinished,
  }) => {
    const gone = new CapturingNotifier('gone');
    const other = new CapturingNotifier('other');
    gone.failWith = () =>
      new DeliveryError('Slack answered 404 channel_not_found', {
        channelId: 'gone',
        retryable: false,
        disableChannel: true,
        status: 404,
      });
    const { send, runtime } = await pipeline(onTestFinished, 'disable', {
      prefix: '',
      channels: [gone, other],
      settings: new Map([
        ['gone', settings({ paceKey: 'gone' })],
        ['other', settings({ paceKey: 'other' })],
      ]),
    });
    await send([makeAlert(9)]);
    await other.waitForAlerts(2, 10_000);
    const kinds = other.messages.flatMap((m) => m.message.alerts.map((a) => a.kind)).sort();
    expect(kinds).toEqual(['keyword_rank_drop', 'source_health']);
    expect(await runtime.channelHealth.disabledReason('gone')).toContain('channel_not_found');
  });

  it.concurrent('after a dead-lettered flush, later alerts of the same group are still delivered', async ({
    expect,
    onTestFinished,
  }) => {
    const flaky = new CapturingNotifier('flaky');
    let down = true;
    flaky.failWith = () =>
      down
        ? new DeliveryError('503 try later', { channelId: 'flaky', retryable: true, status: 503 })
        : undefined;
    const { send, runtime } = await pipeline(onTestFinished, 'dlq-group', {
      prefix: '',
      attempts: 1,
      channels: [flaky],
      settings: new Map([['flaky', settings({ paceKey: 'flaky', groupWaitMs: 100, groupIntervalMs: 100 })]]),
    });
    await send([makeAlert(1)]);
    const deadline = Date.now() + 10_000;
    while ((await runtime.deliverQueue.getFailedCount()) === 0) {
      if (Date.now() > deadline) throw new Error('the first flush never failed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    down = false;
    await send([makeAlert(2)]);
    await flaky.waitForAlerts(1, 10_000);
    await send([makeAlert(3)]);
    await flaky.waitForAlerts(2, 10_000);
    // The dead letter keeps its own alert; the later ones went out on their own.
    expect(flaky.fingerprints()).toEqual([makeAlert(2).fingerprint, makeAlert(3).fingerprint]);
    expect(await runtime.deliverQueue.getFailedCount()).toBe(1);
  });

  it.concurrent('a Slack endpoint slower than the timeout gets a message twice at most, then a dead letter', async ({
    expect,
    onTestFinished,
  }) => {
    const receiver = await startHttpReceiver();
    // Every answer comes after the notifier gave up: each request may well have been posted. The
    // timeout leaves the receiver (in this process) time to read each request before the notifier
    // gives up on it: at 200 ms, with four test files at once, a clean-clone run saw one dropped unread.
    const late = () => new Promise<Reply>((resolve) => setTimeout(() => resolve({ status: 200 }), 2_000));
    receiver.respondWith(late, 10);
    const slack = createSlackNotifier({ id: 'slow', webhookUrl: new Secret(receiver.url), timeoutMs: 1_000 });
    const { send, runtime } = await pipeline(onTestFinished, 'slow-slack', {
      prefix: '',
      attempts: 5,
      channels: [slack],
      settings: new Map([['slow', settings({ paceKey: 'slow', groupWaitMs: 50 })]]),
    });
    // The runtime closes the notifier; the receiver goes after it.
    onTestFinished(() => receiver.close());
    await send([makeAlert(1)]);
    const deps = { queue: runtime.deliverQueue, groups: runtime.deliveryDeps.groups };
    await waitFor('a dead letter', async () => (await listDeadLetters(deps)).length === 1, 15_000);
    // Not five sends (one per attempt): the first and one re-send, then it waits for an operator.
    expect(receiver.requests).toHaveLength(2);
    const [letter] = await listDeadLetters(deps);
    expect(letter).toMatchObject({ alertCount: 1, attempts: 2 });
    expect(letter?.failedReason).toMatch(/possibly delivered.*sent 2 times without an answer/);
  });

  it.concurrent("a failed flush keeps its own window's buffer, never a later window's", async ({
    expect,
  }) => {
    const prefix = testPrefix('keep');
    const redis = testRedis(prefix);
    const groups = new GroupBuffer(redis, prefix);
    const alert = makeAlert(5);
    const hash = groupHash('chat', groupKeyOf(alert, false));
    const timing = { nowMs: 1_000, groupWaitMs: 0, groupIntervalMs: 0, notBeforeMs: 0 };
    const due = await groups.admit(hash, alert, timing, {});
    // A flush of another window (an older dead letter retried, say) leaves this buffer alone.
    expect(await groups.keepForDeadLetter(hash, flushJobId(hash, due - 1), due - 1)).toBe(0);
    expect(await redis.exists(groups.keys(hash).buffer, groups.keys(hash).due)).toBe(2);
    // The flush of this window takes it as its dead letter, and frees the group for the next window.
    expect(await groups.keepForDeadLetter(hash, flushJobId(hash, due), due)).toBe(1);
    expect(await groups.inflight(hash, flushJobId(hash, due))).toEqual([alert]);
    expect(await redis.exists(groups.keys(hash).buffer, groups.keys(hash).due)).toBe(0);
    expect(await orphanedGroups(redis, prefix)).toEqual([]);
    // Again (a re-run): the same alerts, nothing else moves.
    expect(await groups.keepForDeadLetter(hash, flushJobId(hash, due), due)).toBe(1);
  });

  it.concurrent('a group left holding alerts without a flush is picked up by the janitor', async ({
    expect,
    onTestFinished,
  }) => {
    const chat = new CapturingNotifier('chat');
    const { runtime } = await pipeline(onTestFinished, 'orphan', {
      prefix: '',
      channels: [chat],
      settings: new Map([['chat', settings({ paceKey: 'chat' })]]),
    });
    // What a process killed between buffering an alert and scheduling its flush leaves behind.
    const alert = makeAlert(42);
    const groupKey = groupKeyOf(alert, false);
    const hash = groupHash('chat', groupKey);
    const meta = { channelId: 'chat', groupHash: hash, groupKey, hideLowStarText: false, critical: false };
    const deps = runtime.deliveryDeps;
    await deps.groups.admit(
      hash,
      alert,
      { nowMs: Date.now(), groupWaitMs: 0, groupIntervalMs: 0, notBeforeMs: 0 },
      meta,
    );
    await runtime.redis.del(deps.groups.keys(hash).due);
    expect(await orphanedGroups(runtime.redis, runtime.prefix)).toEqual([hash]);
    expect(await flushOrphanedGroups(deps, [hash])).toBe(1);
    await chat.waitForAlerts(1, 10_000);
    expect(chat.fingerprints()).toEqual([alert.fingerprint]);
    expect(await orphanedGroups(runtime.redis, runtime.prefix)).toEqual([]);
  });
});
