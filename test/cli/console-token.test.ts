/**
 * `run` with a `console:` section serves the console with the token `console` would use: without
 * one configured it generates one and prints it once on stdout (never in a log line) when stdout
 * is a terminal, and serves no console when it is not (a log stream would keep the token); with
 * SHELFWATCH_CONSOLE_TOKEN it prints none; beyond loopback without a token the config refuses.
 * Real CLI processes, a real Redis and the simulator.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { processMarks } from '../helpers/leftover-processes.ts';
import { type OneBookSim, startOneBookSim } from '../helpers/one-book-sim.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';

const KEY = 'sk_console_token_0123456789';
const ENV_TOKEN = 'console-env-token-0123456789abcdef';
const prefix = testPrefix('console-token');
testRedis(prefix);
let one: OneBookSim;
let configs = 0;

beforeAll(async () => {
  one = await startOneBookSim(KEY, 9);
});
afterAll(async () => one?.sim.close());

/**
 * Each config has keys of its own under the file's prefix (its hash tag, and its clean-up): the
 * tests run at once, and two processes on one prefix would share their queues and revisions.
 */
function configWith(consoleSection: Record<string, unknown>): string {
  configs += 1;
  return writeConfig(tempDir(), 'console.yaml', {
    redis: { url: redisUrl(), prefix: `${prefix}-${configs}` },
    server: { port: 0 },
    console: consoleSection,
    workspaces: [one.workspace({ sales: false })],
  });
}

/** Starts the CLI and collects stdout and stderr apart until it is stopped. */
function start(args: string[], env: Record<string, string> = {}, program?: string) {
  const [command, argv] =
    program === undefined ? [process.execPath, ['bin/shelfwatch.mjs', ...args]] : [program, args];
  const child: ChildProcess = spawn(command, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', ...processMarks(), ...env },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
  return { child, out, stop };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function logIn(url: string, token: string): Promise<number> {
  const res = await fetch(new URL('/login', url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  return res.status;
}

/** Waits until the process's stdout shows `what` (or it exits); the failure carries its output. */
async function untilOutput(
  run: ReturnType<typeof start>,
  what: string,
  shown: (stdout: string) => boolean,
): Promise<void> {
  await waitFor(what, async () => shown(run.out.stdout) || run.child.exitCode !== null, 60_000).catch(
    (error: unknown) => {
      throw new Error(`${String(error)} in:\n${run.out.stdout}\n${run.out.stderr}`);
    },
  );
}

// Each test starts its own process (its own port, keys and config file): they run at once.
describe.concurrent('the console token of run and console', () => {
  it('run with console.enabled, no token and no terminal serves no console and keeps polling', {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async ({ expect }) => {
    // A pipe, as under Docker or systemd: a generated token printed there would land in the logs.
    const run = start(['run', '--config', configWith({ enabled: true, port: 0 })]);
    try {
      await untilOutput(run, 'run to start its workers', (stdout) => stdout.includes('shelfwatch running'));
      expect(run.child.exitCode).toBeNull();
      expect(run.out.stdout).toMatch(
        /"msg":"console not started: no token is set and stdout is not a terminal/,
      );
      expect(run.out.stdout + run.out.stderr).not.toContain('console token (generated');
      expect(run.out.stdout).not.toContain('console listening');
    } finally {
      await run.stop();
    }
  });

  it('run with console.enabled and no token in a terminal generates one and prints it once', {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async ({ expect }) => {
    const port = await freePort();
    const command = `exec ${JSON.stringify(process.execPath)} bin/shelfwatch.mjs run --config ${configWith({ enabled: true, port })}`;
    // util-linux `script` gives the CLI a pseudo-terminal for stdout, as a person running it has.
    const run = start(['-qefc', command, '/dev/null'], {}, 'script');
    try {
      await untilOutput(run, 'the generated token line', (stdout) =>
        /console token \(generated/.test(stdout),
      );
      const token = /console token \(generated, valid until this process stops\): (\S+)/.exec(
        run.out.stdout,
      )?.[1];
      expect(token).toMatch(/^\S{20,}$/);
      const url = `http://127.0.0.1:${port}/`;
      expect(await logIn(url, token ?? '')).toBe(303);
      expect(await logIn(url, 'wrong')).toBe(401);
      expect((run.out.stdout + run.out.stderr).split(token ?? '').length - 1).toBe(1);
    } finally {
      await run.stop();
    }
  });

  it('console with SHELFWATCH_CONSOLE_TOKEN prints its address and no token', {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async ({ expect }) => {
    const served = start(['console', '--config', configWith({ port: 0 })], {
      SHELFWATCH_CONSOLE_TOKEN: ENV_TOKEN,
    });
    try {
      await untilOutput(served, 'the console address', (stdout) => stdout.includes('shelfwatch console: '));
      const url = /shelfwatch console: (\S+)\n/.exec(served.out.stdout)?.[1] ?? '';
      expect(await logIn(url, ENV_TOKEN)).toBe(303);
      expect(served.out.stdout).not.toContain('console token');
      expect(served.out.stdout + served.out.stderr).not.toContain(ENV_TOKEN);
    } finally {
      await served.stop();
    }
  });

  it('run whose console port is taken says so and keeps polling', {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async ({ expect }) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const run = start(['run', '--config', configWith({ enabled: true, port })], {
      SHELFWATCH_CONSOLE_TOKEN: ENV_TOKEN,
    });
    try {
      await untilOutput(run, 'run to start its workers', (stdout) => stdout.includes('shelfwatch running'));
      expect(run.child.exitCode).toBeNull();
      expect(run.out.stdout).toMatch(/"msg":"console not started; set console\.port/);
      expect(run.out.stdout).not.toContain('console listening');
    } finally {
      await run.stop();
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('run refuses a console beyond loopback without a token, naming the setting', {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async ({ expect }) => {
    const config = configWith({ enabled: true, host: '0.0.0.0', allowRemote: true });
    const outcome = await shelfwatch(['run', '--config', config], { SHELFWATCH_CONSOLE_TOKEN: ENV_TOKEN });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('console.token');
    expect(outcome.stderr).toContain('needs a token');
  });
});
