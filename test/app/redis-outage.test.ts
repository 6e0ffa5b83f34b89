/**
 * Redis going away under a running process: on a private redis-server that the test stops and
 * starts again (never the shared one). The process rides it out, says so once, and polls on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisConnection } from '../../src/app/redis-connection.ts';
import { startPrivateRedis } from '../../src/tools/private-redis.ts';
import { RestartableRedis } from '../chaos/redis-aof.ts';
import { tempDir } from '../config/helpers.ts';
import { writeConfig } from '../helpers/cli.ts';
import { startOneBookSim } from '../helpers/one-book-sim.ts';
import { waitFor } from '../helpers/wait.ts';

const releases: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const release of releases.reverse()) await release();
});

describe('a worker whose Redis drops before its blocking connection is ready', () => {
  it('takes jobs once Redis is back (its first connect does not fail for good)', async () => {
    const first = await startPrivateRedis();
    const connection = createRedisConnection({ url: first.url, cluster: false });
    connection.on('error', () => {});
    releases.push(() => connection.disconnect());
    await connection.ping();
    await first.stop();
    // BullMQ duplicates the connection for the worker's blocking commands: its first connect fails.
    const worker = new Worker('outage', async () => 'done', { connection, prefix: '{outage}' });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    releases.push(() => worker.close(true));
    await waitFor('the worker to see Redis gone', async () => errors.length > 0, 10_000);
    const second = await startPrivateRedis({ port: first.port });
    releases.push(() => second.stop());
    const producer = new Redis(second.url, { maxRetriesPerRequest: null });
    const queue = new Queue('outage', { connection: producer, prefix: '{outage}' });
    releases.push(async () => {
      await queue.close();
      producer.disconnect();
    });
    const job = await queue.add('job', {});
    await expect.poll(() => job.getState(), { timeout: 15_000, interval: 100 }).toBe('completed');
  }, 40_000);
});

const ROOT = resolve(import.meta.dirname, '../..');
const KEY = 'sk_redis_outage_0123456789';

describe('`shelfwatch run` through a Redis restart', () => {
  it('logs one warning and one recovery line, nothing on stderr, and keeps polling', async () => {
    const redis = await RestartableRedis.create();
    releases.push(() => redis.dispose());
    const { sim, workspace } = await startOneBookSim(KEY, 4);
    releases.push(() => sim.close());
    const prefix = '{outage-run}';
    const file = writeConfig(tempDir(), 'run.json', {
      redis: { url: redis.url, prefix },
      server: { port: 0 },
      workspaces: [workspace({ sales: false, cadence: { book: '2s' } })],
      channels: [{ id: 'log', type: 'log' }],
    });
    const child: ChildProcess = spawn(process.execPath, ['bin/shelfwatch.mjs', 'run', '--config', file], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    releases.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const probe = new Redis(redis.url, { maxRetriesPerRequest: null });
    probe.on('error', () => {});
    releases.push(() => probe.disconnect());
    const polls = () => probe.zcard(`${prefix}:poll:completed`).catch(() => -1);
    await waitFor('a first poll', async () => (await polls()) > 0, 60_000);

    const before = stdout.length;
    await redis.restart('SIGKILL', 3_000);
    const afterOutage = await polls();
    await waitFor('polls after the restart', async () => (await polls()) > afterOutage + 1, 30_000);

    expect(child.exitCode).toBeNull();
    expect(stderr).toBe('');
    const lines = stdout
      .slice(before)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.filter((line) => line.level >= 40).map((line) => line.msg)).toEqual([
      expect.stringMatching(/^redis connection lost/),
    ]);
    expect(lines.filter((line) => line.msg === 'redis connection restored')).toHaveLength(1);
  }, 120_000);
});
