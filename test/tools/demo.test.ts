/**
 * The demo end to end, as a newcomer runs it: `node bin/shelfwatch.mjs demo` in a child process,
 * against the test Redis (REDIS_URL), then the files it captured and the keys it left (none). And
 * Ctrl-C in the middle: the demo exits promptly and its private redis-server is gone.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, describe, it } from 'vitest';
import { findRedisServerBinary } from '../../src/tools/private-redis.ts';
import { redisUrl } from '../helpers/redis.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'shelfwatch.mjs');
const KINDS = ['keyword_rank_drop', 'review_new', 'sales_revision', 'bsr_removed'] as const;

interface DemoRun {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'shelfwatch-demo-test-'));
  dirs.push(dir);
  return dir;
}

function startDemo(args: string[], env: Record<string, string>): DemoRun {
  const child = spawn(process.execPath, [BIN, 'demo', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The exit code, or a failure naming what the demo printed if it runs past `timeoutMs`. */
async function exitWithin(run: DemoRun, timeoutMs: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL');
      reject(new Error(`demo still running after ${timeoutMs} ms; output:\n${run.output()}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([run.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves with the first match of `pattern` in the demo's output, as soon as it is printed. */
function waitForOutput(run: DemoRun, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(run.output());
      if (match === null) return;
      cleanup();
      resolve(match);
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`demo exited before printing ${pattern}; output:\n${run.output()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${run.output()}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      run.child.stdout?.off('data', check);
      run.child.off('exit', onExit);
    };
    run.child.stdout?.on('data', check);
    run.child.once('exit', onExit);
    check();
  });
}

async function filesIn(dir: string, ext: string): Promise<{ name: string; text: string }[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(ext)).sort();
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(join(dir, name), 'utf8') })));
}

async function keysUnder(prefix: string): Promise<string[]> {
  const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
  try {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    return found;
  } finally {
    await redis.quit();
  }
}

/** Child processes of `pid` with their command names (`ps` works the same on Linux and macOS). */
function childrenOf(pid: number): { pid: number; command: string }[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,comm='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, ppid]) => Number(ppid) === pid)
    .map(([child, , ...command]) => ({ pid: Number(child), command: command.join(' ') }));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (with a deadline) until none of `pids` is alive; returns those still alive at the deadline. */
async function goneWithin(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isRunning);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// The two runs share nothing (the test Redis under the demo's own prefix; a private redis-server):
// they run at once.
describe.concurrent('shelfwatch demo', () => {
  it('tells the whole story on the test Redis and leaves no keys behind', { timeout: 150_000 }, async ({
    expect,
  }) => {
    const out = await tempDir();
    const run = startDemo(['--out', out], { REDIS_URL: redisUrl() });
    const code = await exitWithin(run, 130_000);
    const output = run.output();
    expect(code, output).toBe(0);

    expect(output).toContain(`REDIS_URL (`);
    // The console's address is printed; not in a terminal, the demo still ends (code 0 above).
    expect(output).toMatch(/Console {4}http:\/\/127\.0\.0\.1:\d+\/ \(token \S+\)/);
    expect(output).not.toContain('stays up');
    for (const kind of KINDS) expect(output).toMatch(new RegExp(`→ ${kind}: \\S`));

    // The digest: the browser copy, and the email's HTML part as captured.
    const digest = await readFile(join(out, 'digest.html'), 'utf8');
    expect(digest).toMatch(/<html/i);
    const digestHtml = /Digest HTML\s+(\S+\.html)/.exec(output)?.[1];
    expect(digestHtml).toBeDefined();
    // Printed relative to the demo's working directory when inside it, else absolute.
    expect(await readFile(resolve(ROOT, digestHtml ?? ''), 'utf8')).toMatch(/<html/i);

    // The hostile review reached both channels escaped, never as live markup or a mention.
    const slack = await filesIn(join(out, 'slack'), '.json');
    expect(slack.length).toBeGreaterThanOrEqual(4);
    expect(slack.some((f) => f.text.includes('&lt;!channel&gt;'))).toBe(true);
    for (const file of slack) expect(file.text, file.name).not.toContain('<!channel>');
    const mails = await filesIn(join(out, 'mail'), '.html');
    expect(mails.length).toBeGreaterThanOrEqual(5);
    expect(mails.some((f) => f.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'))).toBe(true);
    for (const file of mails) expect(file.text, file.name).not.toContain('<script>');
    expect((await readdir(join(out, 'mail'))).filter((name) => name.endsWith('.eml')).length).toBe(
      mails.length,
    );

    const prefix = /demo keys under (\{shelfwatch-demo-[0-9a-f]+\})/.exec(output)?.[1];
    expect(prefix).toBeDefined();
    expect(output).toMatch(/\d+ Redis keys under \{shelfwatch-demo-[0-9a-f]+\} deleted/);
    expect(await keysUnder(prefix ?? '{shelfwatch-demo-')).toEqual([]);
  });

  it.skipIf(findRedisServerBinary() === undefined)(
    'stops at once on SIGINT and leaves no process behind',
    { timeout: 60_000 },
    async ({ expect }) => {
      const out = await tempDir();
      const run = startDemo(['--redis', 'private', '--out', out], {});
      const [, port] = await waitForOutput(
        run,
        /a private redis-server on redis:\/\/127\.0\.0\.1:(\d+)/,
        30_000,
      );
      await waitForOutput(run, /workers started/, 30_000);
      const pid = run.child.pid ?? 0;
      const children = childrenOf(pid);
      const redisServer = children.find((c) => c.command.includes('redis-server'));
      expect(redisServer, JSON.stringify(children)).toBeDefined();
      expect(await portAccepts(Number(port))).toBe(true);

      const signalledAt = Date.now();
      run.child.kill('SIGINT');
      const code = await exitWithin(run, 20_000);
      expect(Date.now() - signalledAt).toBeLessThan(15_000);
      expect(code, run.output()).toBe(130);
      expect(run.output()).toContain('Interrupted (SIGINT)');
      expect(run.output()).toContain('the private redis-server is stopped');
      expect(await goneWithin([redisServer?.pid ?? 0], 1_000)).toEqual([]);
      // Any other helper (tsx's esbuild service) ends with its parent.
      expect(
        await goneWithin(
          children.map((c) => c.pid),
          5_000,
        ),
      ).toEqual([]);
      expect(await portAccepts(Number(port))).toBe(false);
    },
  );
});
