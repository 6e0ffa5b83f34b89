import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SimLoggedRequest } from '../../src/sim/control-schemas.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';

const KEY = 'sk_budget_test_0123456789';
const PER_MINUTE = 20;
const prefix = testPrefix('budget3');
testRedis(prefix);
const workers: ChildProcess[] = [];
const output: string[] = [];

const fx = useSimulator({
  seed: 3,
  books: 100,
  key: KEY,
  workspace: 'ws-budget',
  plan: `custom:${PER_MINUTE}:5000`,
});

beforeAll(async () => {
  const world = fx.world;
  const books = world.books
    .slice(0, 100)
    .map((b) => `      - { asin: ${b.asin}, marketplaces: [US], keywords: { top: 10 } }`);
  expect(books).toHaveLength(100);
  const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-budget-'));
  const file = join(dir, 'shelfwatch.yaml');
  // 100 books × (book + keywords) = 200 targets, each wanting a poll every 30 s: 400 a minute
  // of demand against a plan that allows 20.
  writeFileSync(
    file,
    [
      `redis: { url: "${redisUrl()}", prefix: "${prefix}" }`,
      'workspaces:',
      '  - id: ws-budget',
      `    baseUrl: ${fx.url}`,
      `    apiKey: ${KEY}`,
      `    plan: custom:${PER_MINUTE}:5000`,
      '    sales: false',
      '    cadence: { book: 30s, keywords: 30s }',
      '    books:',
      ...books,
      '',
    ].join('\n'),
  );
  for (let i = 0; i < 3; i += 1) {
    const child = spawn(
      process.execPath,
      ['bin/shelfwatch.mjs', 'run', '--config', file, '--log-level', 'warn'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REDIS_URL: '' },
      },
    );
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    workers.push(child);
  }
}, 60_000);

afterAll(async () => {
  for (const child of workers) if (child.exitCode === null) child.kill('SIGKILL');
});

/** The most requests that fell inside any 60-second interval of the log. */
function busiestMinute(log: SimLoggedRequest[]): number {
  const times = log.map((r) => Date.parse(r.real_time)).sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= 60_000) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

it('3 worker processes, 200 targets on custom:20:5000: never more than 20 requests in any minute, no 429', async () => {
  const deadline = Date.now() + 150_000;
  let log: SimLoggedRequest[] = [];
  // Until the window has turned once: the first minute's requests (demand saturates it at once)
  // and then as many again, each of which only the release of a first-minute grant 61 s later
  // lets out. That turn is what the sliding-window claim is about; the API's calendar minute
  // changes inside it. Longer adds nothing but the next turn, a minute later.
  for (;;) {
    log = (await fx.control.requests()).filter((r) => r.path.startsWith('/v1/'));
    if (log.length >= 2 * PER_MINUTE) break;
    if (Date.now() > deadline)
      throw new Error(`not enough traffic before the deadline: ${log.length} requests\n${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  for (const child of workers) child.kill('SIGTERM');
  const exits = await Promise.all(
    workers.map((child) => (child.exitCode === null ? once(child, 'exit') : [child.exitCode])),
  );
  expect(exits.map(([code]) => code)).toEqual([0, 0, 0]);

  log = (await fx.control.requests()).filter((r) => r.path.startsWith('/v1/'));
  expect(log.filter((r) => r.status === 429)).toEqual([]);
  expect(busiestMinute(log)).toBeLessThanOrEqual(PER_MINUTE);
  // The budget was used, not just respected: saturating demand keeps it near the limit.
  expect(busiestMinute(log)).toBeGreaterThanOrEqual(PER_MINUTE - 2);
  // Every process did work (the queue spreads jobs over the three).
  expect(new Set(log.map((r) => r.workspace))).toEqual(new Set(['ws-budget']));
}, 200_000);
