/**
 * A worker abandoned mid-poll (its process killed): how long its target waits until another worker
 * polls it again. Measured with a short lock and stalled-check interval, against the bound that
 * docs/operations.md states for the defaults (lock + check interval, plus one poll).
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import type { AnalyticsClient } from '../../src/api/index.ts';
import { type PollJobResult, stalledPollBoundMs } from '../../src/jobs/poll-job.ts';
import { POLL_QUEUE } from '../../src/jobs/queues.ts';
import { TargetLease } from '../../src/poll/lease.ts';
import type { PollJobData } from '../../src/poll/processor.ts';
import { schedulerIdFor } from '../../src/poll/schedule.ts';
import { startPollWorker } from '../../workers/poll.ts';
import { startOneBookSim } from '../helpers/one-book-sim.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';
import { createHarness, parseOrThrow } from './engine-harness.ts';

const KEY = 'sk_stall_gap_0123456789';
const prefix = testPrefix('stall-gap');
const redis = testRedis(prefix);
const releases: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const release of releases.reverse()) await release();
});

it('a killed worker’s target is polled again within lock + stalled-check interval', async () => {
  const { sim, workspace, bookTarget: targetId } = await startOneBookSim(KEY, 9);
  releases.push(() => sim.close());
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [workspace({ sales: false })],
    channels: [{ id: 'log', type: 'log' }],
  });
  const harness = createHarness({ sim, redis, prefix, config });
  releases.push(() => harness.close());
  const deps = { ...harness.deps, lease: new TargetLease(redis, prefix) };
  const stall = { lockDurationMs: 1_000, stalledIntervalMs: 1_000 };
  const shutdown = new AbortController();
  releases.push(() => shutdown.abort());

  // Worker A: its API client never answers, so its poll hangs until A is "killed".
  let hungAt: number | undefined;
  const hanging = new Proxy(
    {},
    {
      get: () => () => {
        hungAt ??= Date.now();
        return new Promise(() => {});
      },
    },
  ) as AnalyticsClient; // every method of the client: a call that never returns
  const connectionA = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  connectionA.on('error', () => {});
  const workerA = startPollWorker({
    connection: connectionA,
    prefix,
    concurrency: 1,
    deps: { ...deps, clientFor: () => hanging },
    clock: sim.clock,
    shutdownSignal: shutdown.signal,
    stall,
  });
  const queue = new Queue<PollJobData>(POLL_QUEUE, { connection: redis, prefix });
  releases.push(() => queue.close());
  // A long cadence: the next scheduled poll is an hour away, so only the stalled job's re-run counts.
  await queue.upsertJobScheduler(
    schedulerIdFor('ws', targetId),
    { every: 3_600_000 },
    { name: 'poll', data: { workspace: 'ws', targetId }, opts: { attempts: 3 } },
  );
  await waitFor('worker A to start the poll', async () => hungAt !== undefined, 10_000);

  // Worker B runs beside it; then A dies: no more lock renewals, its poll never finishes.
  const workerB = startPollWorker({
    connection: redis,
    prefix,
    concurrency: 1,
    deps,
    clock: sim.clock,
    shutdownSignal: shutdown.signal,
    stall,
  });
  releases.push(() => workerB.close());
  const polledAgain = new Promise<{ at: number; result: PollJobResult }>((resolve) => {
    workerB.on('completed', (_job, result) => resolve({ at: Date.now(), result }));
  });
  const killedAt = Date.now();
  await workerA.close(true);
  connectionA.disconnect();

  const { at, result } = await polledAgain;
  const gapMs = at - killedAt;
  expect(result.status).toBe('ok');
  // Lock expiry + one stalled check after it, plus the poll itself (a few local requests).
  expect(gapMs).toBeLessThanOrEqual(stalledPollBoundMs(stall) + 1_500);
  expect(gapMs).toBeGreaterThanOrEqual(stall.lockDurationMs / 2);
}, 30_000);
