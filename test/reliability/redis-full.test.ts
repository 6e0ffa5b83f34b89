/**
 * A full Redis (`maxmemory` with `noeviction`) under a running `shelfwatch run` (a private
 * redis-server): one warning for the stretch, not one line per refusal; `/readyz` not ready while
 * writes fail; the end of the stretch said once writes go through, as a log line and one
 * `redis_writable` alert at a local receiver; and every poll scheduler has a next job again within
 * one reconcile of memory being freed (a refused write may have lost some), and polls that were running
 * when it filled up are put back in the queue at once, so polling resumes within seconds.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { startPrivateRedis } from '../../src/tools/private-redis.ts';
import { startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { tempDir } from '../config/helpers.ts';
import { writeConfig } from '../helpers/cli.ts';
import { startOneBookSim } from '../helpers/one-book-sim.ts';
import { startRun } from '../helpers/run-process.ts';
import { waitFor } from '../helpers/wait.ts';

const KEY = 'sk_redis_full_0123456789';
const FULL_MS = 30_000;
const releases: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const release of releases.reverse()) await release();
});

/** Poll schedulers whose `next` job is in no pending state: BullMQ will never run them again. */
async function stoppedSchedulers(queue: Queue): Promise<string[]> {
  const pending = new Set(await queue.getRanges(['waiting', 'delayed', 'prioritized', 'active'], 0, -1));
  const schedulers = await queue.getJobSchedulers(0, -1);
  return schedulers.filter((s) => !pending.has(`repeat:${s.key}:${s.next}`)).map((s) => s.key);
}

it('Redis full for 30 s: at most 200 log lines, /readyz not ready, writes said to go through after, schedulers back', async () => {
  // Three services that need nothing of each other: started at once, each released after the test.
  const [redis, { workspace }, ops] = await Promise.all([
    startPrivateRedis({ extraArgs: ['--maxmemory-policy', 'noeviction'] }).then((started) => {
      releases.push(() => started.stop());
      return started;
    }),
    startOneBookSim(KEY, 5).then((started) => {
      releases.push(() => started.sim.close());
      return started;
    }),
    startHttpReceiver().then((started) => {
      releases.push(() => started.close());
      return started;
    }),
  ]);
  const prefix = '{full}';
  const file = writeConfig(tempDir(), 'run.json', {
    redis: { url: redis.url, prefix },
    server: { port: 0 },
    workspaces: [workspace({ sales: false, cadence: { book: '1s', keywords: '1s' } })],
    channels: [
      { id: 'log', type: 'log' },
      {
        id: 'ops',
        type: 'webhook',
        url: ops.url,
        secret: 'whsec_redis_full_0123456789abcdef',
        groupWait: '0s',
      },
    ],
    routes: [
      { match: { kind: ['redis_writable'] }, channels: ['ops'] },
      { match: { kind: ['bsr_worsened', 'keyword_rank_drop'] }, channels: ['log'] },
    ],
  });
  const worker = startRun(file);
  releases.push(() => worker.kill());
  const listening = await worker.waitForLine(
    'the health server',
    (l) => l.msg === 'health and metrics listening',
    60_000,
  );
  const ready = async () =>
    (await fetch(`${String(listening.url)}/readyz`, { signal: AbortSignal.timeout(10_000) })).status;
  const admin = new Redis(redis.url);
  releases.push(async () => admin.disconnect());
  const polls = () => admin.zcard(`${prefix}:poll:completed`);
  await waitFor('polls', async () => (await polls()) > 2, 60_000);

  const before = worker.lines.length;
  await admin.config('SET', 'maxmemory', '1');
  const fullAt = Date.now();
  const statuses: number[] = [];
  while (Date.now() - fullAt < FULL_MS) {
    statuses.push(await ready());
    await new Promise((resolveTick) => setTimeout(resolveTick, 1_000));
  }
  const linesWhileFull = worker.lines.length - before;
  await admin.config('SET', 'maxmemory', '0');
  const freedAt = Date.now();
  console.log(
    `full ${FULL_MS / 1_000} s: ${linesWhileFull} log lines, /readyz ${statuses.filter((s) => s === 503).length} of ${statuses.length} probes 503`,
  );
  expect(linesWhileFull).toBeLessThanOrEqual(200);
  expect(statuses.slice(2).every((s) => s === 503)).toBe(true);
  await waitFor(
    'writes said to go through again',
    () => worker.lines.some((l) => l.msg === 'Redis accepts writes again'),
    60_000,
  );
  const writableAt = Date.now();
  console.log(`writes again ${((writableAt - freedAt) / 1_000).toFixed(1)} s after memory was freed`);
  // The reconcile that the end of the stretch runs (its line) restarts what a refused write lost.
  const pollQueue = new Queue('poll', { connection: admin, prefix });
  releases.push(() => pollQueue.close());
  const reconciled = await worker.waitForLine(
    'a reconcile after the stretch',
    (l) => l.msg === 'schedulers reconciled' && Number(l.time) >= fullAt,
    30_000,
  );
  const restarted = worker.lines.find(
    (l) => l.msg.includes('without a next job') && Number(l.time) >= fullAt,
  );
  // Two reads (pending jobs, then schedulers) are not one snapshot: a poll finishing between them
  // moves its scheduler on to a job the first read missed. A scheduler that is really stopped stays
  // so, hence a few seconds (far less than the next reconcile) for the reads to agree.
  let stopped = await stoppedSchedulers(pollQueue);
  const agreeBy = Date.now() + 5_000;
  while (stopped.length > 0 && Date.now() < agreeBy) {
    await new Promise((resolveTick) => setTimeout(resolveTick, 250));
    stopped = await stoppedSchedulers(pollQueue);
  }
  console.log(
    `reconciled ${((Number(reconciled.time) - freedAt) / 1_000).toFixed(1)} s after memory was freed; ` +
      `${String(restarted?.restarted ?? 0)} schedulers restarted; ${stopped.length} without a next job after it`,
  );
  expect(await pollQueue.getJobSchedulersCount()).toBeGreaterThan(0);
  expect(stopped).toEqual([]);
  const [writable] = await ops.waitForMessages(1, 30_000);
  expect(JSON.stringify(writable?.body)).toContain('redis_writable');
  // Polls that were running when Redis filled up could not store their end; they are put back in the
  // queue when writes go through (not a minute later by BullMQ's stalled-job check), so polling
  // resumes at once.
  const requeued = worker.lines.find((l) => l.msg.startsWith('jobs whose end a full Redis refused'));
  console.log(`${String(requeued?.jobs ?? 0)} jobs put back in the queue after the stretch`);
  const polled = await polls();
  await waitFor('polls again', async () => (await polls()) > polled + 2, 15_000);
  expect(await worker.stop()).toBe(0);
  expect(ops.requests.filter((r) => JSON.stringify(r.body).includes('redis_writable'))).toHaveLength(1);
}, 240_000);
