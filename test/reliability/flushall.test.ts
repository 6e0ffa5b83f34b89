/**
 * FLUSHALL under two running `shelfwatch run` processes (a private redis-server): the loss is said
 * within 30 s (an error line, and one `state_lost` alert on the route that matches it, at a local
 * receiver), and every review published after the flush is alerted exactly once (the new baseline
 * must not swallow them), with nothing alerted twice.
 */
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { startPrivateRedis } from '../../src/tools/private-redis.ts';
import { startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { tempDir } from '../config/helpers.ts';
import { writeConfig } from '../helpers/cli.ts';
import { reviewAlertIds, startRun } from '../helpers/run-process.ts';
import { startSimFixture } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';

const KEY = 'sk_flushall_0123456789ab';
const releases: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const release of releases.reverse()) await release();
});

const reviewAlerts = reviewAlertIds;

it('FLUSHALL mid-run: said within 30 s, every review published after it alerted once', async () => {
  const redis = await startPrivateRedis();
  releases.push(() => redis.stop());
  const fx = await startSimFixture({ seed: 21, books: 1, key: KEY, workspace: 'ws' });
  releases.push(() => fx.close());
  const campaign = fx.campaign();
  const review = async (n: number) => {
    const answer = await fx.control.event({
      type: 'review',
      campaign_id: campaign.campaign_id,
      platform: 'amazon',
      rating: 1 + (n % 5),
      body: `review number ${n}`,
      reviewer: `Reader ${n}`,
    });
    return String(answer.review_id);
  };
  // The operators' route: state_lost only, to a webhook (a local receiver).
  const ops = await startHttpReceiver();
  releases.push(() => ops.close());
  const file = writeConfig(tempDir(), 'run.json', {
    redis: { url: redis.url, prefix: '{flush}' },
    server: { port: 0 },
    workspaces: [
      {
        id: 'ws',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: fx.plan,
        campaigns: [{ id: campaign.campaign_id }],
        cadence: { reviews: '2s' },
      },
    ],
    channels: [
      { id: 'log', type: 'log', groupWait: '0s', groupInterval: '1s' },
      {
        id: 'ops',
        type: 'webhook',
        url: ops.url,
        secret: 'whsec_flushall_0123456789abcdef',
        groupWait: '0s',
        groupInterval: '1s',
      },
    ],
    routes: [
      { match: { kind: ['review_new'] }, channels: ['log'] },
      { match: { kind: ['state_lost'] }, channels: ['ops'] },
    ],
    rules: [{ id: 'new-review', kind: 'review_new' }],
  });
  const workers = [startRun(file), startRun(file)];
  for (const w of workers) releases.push(() => w.kill());
  for (const w of workers) {
    await w.waitForLine('a worker running', (l) => l.msg.startsWith('shelfwatch running'), 60_000);
  }
  await waitFor(
    'the baseline',
    () => workers.some((w) => w.lines.some((l) => l.msg === 'baselines stored')),
    60_000,
  );
  const before = [await review(1), await review(2)];
  await waitFor(
    'the reviews before the flush alerted',
    () => before.every((id) => reviewAlerts(workers).includes(id)),
    60_000,
  );

  const admin = new Redis(redis.url);
  releases.push(async () => admin.disconnect());
  await admin.flushall();
  const flushedAt = Date.now();
  const after = [await review(3), await review(4), await review(5)];
  const told = await Promise.any(
    workers.map((w) =>
      w.waitForLine('the loss said', (l) => l.level >= 50 && l.msg.startsWith('Redis lost'), 30_000),
    ),
  );
  console.log(`state loss said ${((Number(told.time) - flushedAt) / 1_000).toFixed(1)} s after the flush`);
  await waitFor(
    'the reviews after the flush alerted',
    () => after.every((id) => reviewAlerts(workers).includes(id)),
    90_000,
  );
  const later = [await review(6)];
  await waitFor(
    'a later review alerted',
    () => later.every((id) => reviewAlerts(workers).includes(id)),
    60_000,
  );

  const [lost] = await ops.waitForMessages(1, 30_000);
  console.log(
    `state_lost at the receiver ${((Number(lost?.receivedAt) - flushedAt) / 1_000).toFixed(1)} s after the flush`,
  );
  expect(JSON.stringify(lost?.body)).toContain('state_lost');

  const alerted = reviewAlerts(workers);
  const counts = new Map<string, number>();
  for (const id of alerted) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const id of [...after, ...later]) expect(counts.get(id), `review ${id}`).toBe(1);
  // Nothing invented: no review alerted twice, none that the test did not publish.
  expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
  expect(alerted.filter((id) => ![...before, ...after, ...later].includes(id))).toEqual([]);
  expect(Number(told.time) - flushedAt).toBeLessThanOrEqual(30_000);
  for (const w of workers) expect(await w.stop()).toBe(0);
  // Both processes noticed the loss and raised it: delivered once all the same.
  expect(ops.requests.filter((r) => JSON.stringify(r.body).includes('state_lost'))).toHaveLength(1);
}, 240_000);
