/**
 * A full Redis (`maxmemory` with `noeviction`) under a running `shelfwatch run` (a private
 * redis-server): one warning for the stretch, not one line per refusal; `/readyz` not ready while
 * writes fail; the end of the stretch said once writes go through.
 */
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { startPrivateRedis } from '../../src/tools/private-redis.ts';
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

// Open (issue 27 item 2): after memory is freed some schedulers have lost their next job and polls
// do not resume within a reconcile; not asserted here yet.
it('Redis full for 30 s: at most 200 log lines, /readyz not ready, writes said to go through after', async () => {
  const redis = await startPrivateRedis({ extraArgs: ['--maxmemory-policy', 'noeviction'] });
  releases.push(() => redis.stop());
  const { sim, workspace } = await startOneBookSim(KEY, 5);
  releases.push(() => sim.close());
  const prefix = '{full}';
  const file = writeConfig(tempDir(), 'run.json', {
    redis: { url: redis.url, prefix },
    server: { port: 0 },
    workspaces: [workspace({ sales: false, cadence: { book: '1s', keywords: '1s' } })],
    channels: [{ id: 'log', type: 'log' }],
  });
  const worker = startRun(file);
  releases.push(() => worker.kill());
  const listening = await worker.waitForLine(
    'the health server',
    (l) => l.msg === 'health and metrics listening',
    60_000,
  );
  const ready = async () => (await fetch(`${String(listening.url)}/readyz`)).status;
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
  console.log(`writes again ${((Date.now() - freedAt) / 1_000).toFixed(1)} s after memory was freed`);
  expect(await worker.stop()).toBe(0);
}, 240_000);
