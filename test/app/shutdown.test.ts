import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisSnapshotStore } from '../../src/snapshot/store.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';

const KEY = 'sk_shutdown_test_0123456789';
const prefix = testPrefix('shutdown');
const redis = testRedis(prefix);
let asin = '';

const fx = useSimulator({
  seed: 4,
  books: 1,
  key: KEY,
  workspace: 'ws',
  plan: 'custom:600:100000',
});

beforeAll(async () => {
  asin = fx.world.books[0]?.asin ?? '';
});

afterAll(async () => {});

it('SIGTERM with a poll in flight lets it finish, commits it, and exits 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-shutdown-'));
  const file = join(dir, 'shelfwatch.yaml');
  writeFileSync(
    file,
    [
      `redis: { url: "${redisUrl()}", prefix: "${prefix}" }`,
      'workspaces:',
      '  - id: ws',
      `    baseUrl: ${fx.url}`,
      `    apiKey: ${KEY}`,
      '    plan: custom:600:100000',
      '    sales: false',
      '    cadence: { book: 5s, keywords: 5s }',
      `    books: [ { asin: ${asin}, keywords: { top: 5 } } ]`,
      '',
    ].join('\n'),
  );
  // The book's first answer takes 3 s: long enough to signal while it is in flight.
  await fx.control.fault({ kind: 'slow', delayMs: 3_000, pathPrefix: `/v1/books/${asin}?`, count: 1 });
  await fx.control.fault({
    kind: 'slow',
    delayMs: 3_000,
    pathPrefix: `/v1/books/${asin}/keywords`,
    count: 1,
  });
  const child = spawn(
    process.execPath,
    ['bin/shelfwatch.mjs', 'run', '--config', file, '--log-level', 'warn'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const queue = new Queue('poll', { connection: redis, prefix });
  try {
    const deadline = Date.now() + 20_000;
    while ((await queue.getActiveCount()) === 0) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`no poll became active\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code, output).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(12_000);
    const store = new RedisSnapshotStore({ redis, prefix });
    const book = await store.get({ workspace: 'ws', kind: 'book', id: `book/${asin}/US` });
    const keywords = await store.get({ workspace: 'ws', kind: 'keywords', id: `keywords/${asin}/US` });
    // Whichever poll was in flight finished and moved its baseline instead of being cut off.
    expect(book !== undefined || keywords !== undefined).toBe(true);
    expect(await queue.getActiveCount()).toBe(0);
    expect(await queue.getFailedCount()).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await queue.close();
  }
}, 40_000);
