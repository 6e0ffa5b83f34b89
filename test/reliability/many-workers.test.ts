/**
 * Three `shelfwatch run` processes on one Redis against the simulator: no target is polled twice in
 * one slot, each process's health server is on loopback only, and when one process is SIGKILLed in
 * the middle of its polls the other two carry on with every target.
 *
 * The dead process's in-flight jobs come back only through BullMQ's stalled-job check (lock 30 s,
 * check every 30 s: 30 to 60 s). Waiting for that is behind SHELFWATCH_STALLED_TEST=1 (about 75 s
 * more); by default the test proves the polling goes on without them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLL_QUEUE } from '../../src/jobs/queues.ts';
import type { SimLoggedRequest } from '../../src/sim/control-schemas.ts';
import { BIN, ROOT } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { waitFor, within } from '../helpers/wait.ts';
import { tempDir, writeIn } from './helpers.ts';

const KEY = 'sk_many_workers_0123456789';
const CADENCE_MS = 3_000;
const SLOW_MS = 2_500;
const STALLED = process.env.SHELFWATCH_STALLED_TEST === '1';

const prefix = testPrefix('rel-workers');
const redis = testRedis(prefix);
const dir = tempDir('many-workers');
let queue: Queue;
let paths: string[] = [];
const workers: { child: ChildProcess; lines: string[] }[] = [];

type Logged = SimLoggedRequest;

/** What the simulator logged of the API (a control call with a deadline: a stall says itself). */
async function apiRequests(): Promise<Logged[]> {
  const all = await within("the simulator's request log", fx.control.requests(), 10_000);
  return all.filter((r) => r.path.startsWith('/v1/'));
}

function byPath(log: readonly Logged[]): Map<string, number[]> {
  const times = new Map<string, number[]>(paths.map((p) => [p, []]));
  for (const r of log) times.get(r.path)?.push(Date.parse(r.real_time));
  for (const list of times.values()) list.sort((a, b) => a - b);
  return times;
}

/**
 * Pairs of requests for one target closer than a third of the cadence: two processes polling one
 * slot. (A poll that ran late, followed by the next slot's poll on time, comes closer than a
 * cadence too; a third leaves room for that on a busy machine.)
 */
function doublePolls(log: readonly Logged[]): string[] {
  const found: string[] = [];
  for (const [path, times] of byPath(log)) {
    for (let i = 1; i < times.length; i += 1) {
      const gap = (times[i] ?? 0) - (times[i - 1] ?? 0);
      if (gap < CADENCE_MS / 3) found.push(`${path}: ${gap} ms after the previous poll`);
    }
  }
  return found;
}

/** Active polls and the poll worker (one per process) holding each, from its lock token (`workerId:n`). */
async function activePollHolders(): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  for (const job of await within('the active polls', queue.getActive(), 10_000)) {
    const lock = redis.get(`${prefix}:${POLL_QUEUE}:${job.id}:lock`);
    const token = await within(`the lock of poll ${job.id}`, lock, 10_000);
    if (token !== null) holders.set(String(job.id), token.split(':')[0] ?? token);
  }
  return holders;
}

/** Slows that share of API answers (the control call fails the test if the simulator refuses it). */
function setSlow(slowRate: number): Promise<void> {
  const set = fx.control.setRates({ slowRate, slowMs: SLOW_MS });
  return within(`the simulator's slowRate set to ${slowRate}`, set, 10_000);
}

const fx = useSimulator({
  seed: 5,
  books: 6,
  campaigns: 0,
  key: KEY,
  workspace: 'ws-many',
  plan: 'custom:100000:10000000',
});

beforeAll(async () => {
  const world = fx.world;
  const books = world.books.slice(0, 6);
  paths = books.flatMap((b) => [`/v1/books/${b.asin}`, `/v1/books/${b.asin}/keywords`]);
  const config = writeIn(
    dir,
    'shelfwatch.yaml',
    [
      `redis: { url: "${redisUrl()}", prefix: "${prefix}" }`,
      'server: { port: 0 }',
      // 12 slots for 12 targets: room for all at normal speed, not for two processes when answers are slow.
      'workers: { pollConcurrency: 4 }',
      'workspaces:',
      '  - id: ws-many',
      `    baseUrl: ${fx.url}`,
      `    apiKey: ${KEY}`,
      '    plan: custom:100000:10000000',
      '    sales: false',
      `    cadence: { book: ${CADENCE_MS / 1000}s, keywords: ${CADENCE_MS / 1000}s }`,
      '    books:',
      ...books.map((b) => `      - { asin: ${b.asin}, marketplaces: [US], keywords: { top: 10 } }`),
      '',
    ].join('\n'),
  );
  queue = new Queue(POLL_QUEUE, { connection: redis, prefix });
  for (let i = 0; i < 3; i += 1) {
    const child = spawn(process.execPath, [BIN, 'run', '--config', config, '--log-level', 'info'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    const lines: string[] = [];
    let rest = '';
    const collect = (chunk: Buffer) => {
      const text = rest + chunk.toString();
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    workers.push({ child, lines });
  }
}, 60_000);

afterAll(async () => {
  for (const { child } of workers)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await within('the poll queue to close', queue?.close() ?? Promise.resolve(), 10_000);
});

/** What the processes said and what the simulator saw, for a failure message. */
async function output(): Promise<string> {
  const said = workers.map(({ lines }, i) => lines.map((l) => `[${i}] ${l.slice(0, 300)}`).join('\n'));
  const seen = [...byPath(await apiRequests())].map(
    ([path, times]) => `${path}: ${times.map((t) => new Date(t).toISOString().slice(17, 23)).join(' ')}`,
  );
  return [...said, ...seen].join('\n');
}

describe('three worker processes on one Redis', () => {
  it('poll every target once per slot, and each health server is on loopback only', async () => {
    // Enough polls to see the cadence: every target three times.
    const log = await waitFor(
      'three polls of every target',
      async () => {
        const all = await apiRequests();
        return [...byPath(all).values()].every((t) => t.length >= 3) ? all : undefined;
      },
      45_000,
      250,
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await output().catch((e: Error) => e.message)}`);
    });
    expect(log.filter((r) => r.status !== 200)).toEqual([]);
    expect(doublePolls(log), await output().catch((e: Error) => e.message)).toEqual([]);

    const urls = workers.map(({ lines }) => {
      const line = lines.find((l) => l.includes('health and metrics listening'));
      return line === undefined ? undefined : String((JSON.parse(line) as { url: unknown }).url);
    });
    expect(
      urls.every((url) => url !== undefined && /^http:\/\/127\.0\.0\.1:\d+$/.test(url)),
      urls.join(' '),
    ).toBe(true);
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;
    for (const url of urls) {
      expect((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) })).status).toBe(200);
      if (outside === undefined) continue;
      const port = Number(new URL(String(url)).port);
      const reached = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: outside, port });
        const done = (result: boolean) => {
          socket.destroy();
          resolve(result);
        };
        socket.once('connect', () => done(true));
        socket.once('error', () => done(false));
        socket.setTimeout(2_000, () => done(false));
      });
      expect([outside, port, reached]).toEqual([outside, port, false]);
    }
  }, 60_000);

  it(
    'SIGKILL one mid-poll: the other two keep polling every target, still once per slot',
    async () => {
      // Slow answers keep about ten polls in flight, more than two processes take (4 each).
      const slowFrom = Date.now();
      await setSlow(1);
      await waitFor(
        'a poll in flight in each of the three processes',
        async () => new Set((await activePollHolders()).values()).size >= 3,
        15_000,
        100,
      );
      const victim = workers[0]?.child;
      if (victim === undefined) throw new Error('no worker');
      const exited = once(victim, 'exit');
      const heldAtKill = await activePollHolders();
      victim.kill('SIGKILL');
      const killedAt = Date.now();
      await setSlow(0);
      await within('the killed process to exit', exited, 10_000);
      // The survivors' polls in flight at the kill end (their answers were slowed by SLOW_MS, so
      // not before that); the dead process's stay active under its lock: one holder is left. Waited
      // for alongside the survivors' next polls (below), which take longer.
      const orphansFound = waitFor(
        "the survivors' polls in flight at the kill to end",
        async () => {
          const now = await activePollHolders();
          const left = [...heldAtKill].filter(([id, holder]) => now.get(id) === holder);
          const holders = new Set(left.map(([, holder]) => holder));
          if (Date.now() - killedAt < SLOW_MS || holders.size > 1) return undefined;
          return left.map(([id]) => id);
        },
        SLOW_MS + 15_000,
        100,
      );
      // The slow spell overloaded the survivors for a moment on purpose; polls delayed by it may
      // run close to the next slot's. Spacing is judged before it and once they have caught up.
      const settled = (r: Logged) => {
        const t = Date.parse(r.real_time);
        return t < slowFrom || t > killedAt + SLOW_MS + 2 * CADENCE_MS;
      };

      const pollsAfter = waitFor(
        'two polls of every target after the kill',
        async () => {
          const all = await apiRequests();
          const after = all.filter((r) => Date.parse(r.real_time) > killedAt + SLOW_MS);
          return [...byPath(after).values()].every((t) => t.length >= 2) ? all : undefined;
        },
        20_000,
        250,
      ).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await output().catch((e: Error) => e.message)}`);
      });
      // Whichever fails first fails the test; the other's failure is then no unhandled rejection.
      for (const wait of [orphansFound, pollsAfter]) wait.catch(() => {});
      const [orphans, log] = await Promise.all([orphansFound, pollsAfter]);
      expect(orphans.length, 'the killed process held no poll: it was not killed mid-poll').toBeGreaterThan(
        0,
      );
      expect(doublePolls(log.filter(settled)), await output().catch((e: Error) => e.message)).toEqual([]);

      if (STALLED) {
        // BullMQ finds the dead process's jobs once their lock (30 s) expired, at its next stalled
        // check (every 30 s), and runs them again: a poll whose slot a later poll already covered.
        const started = Date.now();
        await waitFor(
          'the orphaned jobs to be recovered',
          async () => {
            const states = await within(
              'the states of the orphaned polls',
              Promise.all(orphans.map((id) => queue.getJobState(id))),
              10_000,
            );
            return states.every((state) => state !== 'active') ? states : undefined;
          },
          90_000,
          1_000,
        );
        const recoveredAfter = Date.now() - started;
        for (const id of orphans) {
          const job = await within(`poll ${id}`, queue.getJob(id), 10_000);
          expect([
            id,
            await within(`the state of poll ${id}`, job?.getState() ?? Promise.resolve(undefined), 10_000),
          ]).toEqual([id, expect.stringMatching(/^(completed|unknown)$/)]);
        }
        expect(recoveredAfter).toBeLessThan(90_000);
        expect(doublePolls((await apiRequests()).filter(settled))).toEqual([]);
      }

      const survivors = workers.slice(1).map(({ child }) => child);
      for (const child of survivors) child.kill('SIGTERM');
      const exits = await within(
        'the two survivors to exit on SIGTERM',
        Promise.all(survivors.map((child) => once(child, 'exit'))),
        30_000,
      );
      expect(exits.map(([code]) => code)).toEqual([0, 0]);
    },
    STALLED ? 180_000 : 60_000,
  );
});
