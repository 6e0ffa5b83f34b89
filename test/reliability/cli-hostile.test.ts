/**
 * Hostile command lines against the CLI: every one ends with one clear `shelfwatch: …` line
 * (plus the problem lines of a config), a non-zero exit (2 for bad input) and no stack trace, and
 * nothing makes it hang or read without bound. In process, but for what only a process can show:
 * bytes that are not UTF-8 in argv, a read that could block the test's own thread, and `run`.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliOutcome, runCli, runCliProcess } from '../helpers/cli.ts';
import { crashMarkersIn, tempDir, writeIn } from './helpers.ts';

const dir = tempDir('cli-hostile');

function expectOneLine(outcome: CliOutcome, code: number, fragment: string | RegExp): void {
  expect(outcome.timedOut, `did not finish in time; stderr so far:\n${outcome.stderr.slice(0, 1500)}`).toBe(
    false,
  );
  expect(crashMarkersIn(outcome.stderr), outcome.stderr.slice(0, 1500)).toEqual([]);
  const lines = outcome.stderr.replace(/\n$/, '').split('\n');
  expect(lines, outcome.stderr.slice(0, 1500)).toHaveLength(1);
  expect(lines[0]).toMatch(/^shelfwatch: \S/);
  if (typeof fragment === 'string') expect(lines[0]).toContain(fragment);
  else expect(lines[0]).toMatch(fragment);
  expect(outcome.code).toBe(code);
}

describe('bad commands and flags', () => {
  const LONG = 'x'.repeat(100_000);
  const cases: { args: string[]; fragment: string | RegExp }[] = [
    { args: ['frobnicate'], fragment: "unknown command 'frobnicate' (see --help)" },
    { args: ['validate', '--frob'], fragment: "unknown option '--frob'" },
    { args: ['validate', '--config'], fragment: "option '-c, --config <file>' argument missing" },
    { args: ['sim', '--speed', '-1'], fragment: '--speed expects a number from 0 to 1000000, got "-1"' },
    {
      args: ['sim', '--port', '99999'],
      fragment: '--port expects a whole number from 0 to 65535, got "99999"',
    },
    { args: ['sim', '--seed', '1e999'], fragment: '--seed expects a whole number' },
    { args: ['sim', '--key', 'k:gold'], fragment: '--key:' },
    { args: [LONG], fragment: 'unknown command' },
    { args: ['sim', '--port', LONG], fragment: '--port expects a whole number' },
  ];

  it('each ends in one line, exit 2, no stack trace', async () => {
    const outcomes = await Promise.all(cases.map(({ args }) => runCli(args)));
    const failures: string[] = [];
    cases.forEach(({ args, fragment }, at) => {
      try {
        expectOneLine(outcomes[at] as CliOutcome, 2, fragment);
      } catch (error) {
        failures.push(`${args.join(' ').slice(0, 60)}: ${(error as Error).message.slice(0, 400)}`);
      }
    });
    expect(failures).toEqual([]);
  }, 90_000);

  it('a mistyped command: the suggestion stays on the one line', async () => {
    const outcome = await runCli(['rnu']);
    // Today commander's suggestion comes on a second line: "(Did you mean run?) (see --help)".
    expectOneLine(outcome, 2, /unknown command 'rnu'.*Did you mean run\?/);
  }, 30_000);

  it('a bad --log-level is bad input (exit 2) that names the flag', async () => {
    const config = writeIn(
      dir,
      'redisless.yaml',
      // No Redis answers there: however the flag is checked, nothing can be started against one.
      'redis: { url: "redis://127.0.0.1:1" }\nworkspaces:\n  - { id: acme, baseUrl: "https://a.example", apiKey: k, campaigns: [{ id: c }] }\n',
    );
    const outcome = await runCli(['run', '--config', config, '--log-level', 'nonsense'], {
      timeoutMs: 20_000,
    });
    // Today pino's own message leaks out with exit 1: "default level:nonsense must be included in custom levels".
    expectOneLine(outcome, 2, '--log-level');
  }, 30_000);

  it('--verbose is what turns on the stack trace', async () => {
    const config = writeIn(dir, 'tab.yaml', 'workspaces:\n\t- id: x\n');
    const [quiet, verbose] = await Promise.all([
      runCli(['validate', '--config', config]),
      runCli(['--verbose', 'validate', '--config', config]),
    ]);
    expect(quiet.code).toBe(2);
    expect(crashMarkersIn(quiet.stderr)).toEqual([]);
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(/^\s+at /m);
  }, 30_000);
});

describe('arguments that are not plain text', () => {
  it('non-UTF-8 bytes in a path and in a command name: a clean refusal', async () => {
    const [asPath, asCommand] = await Promise.all([
      runCliProcess([], {
        shell: `exec "$NODE" "$BIN" validate --config "$(printf 'bad-\\377\\376-\\300.yaml')"`,
      }),
      runCliProcess([], { shell: `exec "$NODE" "$BIN" "$(printf '\\377\\376zz\\300')"` }),
    ]);
    expect(asPath.timedOut).toBe(false);
    expect(crashMarkersIn(asPath.stderr)).toEqual([]);
    expect(asPath.code).toBe(2);
    expect(asPath.stderr).toMatch(
      /^shelfwatch: .*: 1 problem\n {2}.*expected a readable config file, got no such file/,
    );
    expectOneLine(asCommand, 2, 'unknown command');
  }, 30_000);
});

describe('config paths that never end', () => {
  it('--config /dev/zero or a FIFO nobody writes: refused within seconds, not read forever', async () => {
    const fifo = join(dir, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    // Processes, not in process: a read that blocks would block the test's own thread. Each is
    // killed after 20 s (a loader that read /dev/zero would grow without bound, about 2.5 GB in
    // 20 s; a FIFO blocks in open()); the start of node and tsx alone takes several seconds on a
    // loaded two-core machine, so 8 s failed there without any read at fault.
    const [zero, pipe] = await Promise.all([
      runCliProcess(['validate', '--config', '/dev/zero'], { timeoutMs: 20_000 }),
      runCliProcess(['validate', '--config', fifo], { timeoutMs: 20_000 }),
    ]);
    for (const [outcome, shown] of [
      [zero, '/dev/zero'],
      [pipe, fifo],
    ] as const) {
      expect(outcome.timedOut, `validate --config ${shown} was still running after 20 s`).toBe(false);
      expect(crashMarkersIn(outcome.stderr)).toEqual([]);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain(`shelfwatch: ${shown}: 1 problem`);
    }
  }, 45_000);
});

describe('run and plan without a reachable Redis', () => {
  it('give up with one line naming the Redis (password hidden) and exit 1, instead of hanging', async () => {
    const password = 'hunter2-redis-pw';
    const config = writeIn(
      dir,
      'no-redis.yaml',
      [
        `redis: { url: "redis://:${password}@127.0.0.1:1" }`,
        'workspaces:',
        '  - { id: acme, baseUrl: "https://a.example", apiKey: k, campaigns: [{ id: c }] }',
        '',
      ].join('\n'),
    );
    // Runtime.connect gives up after 5 s; 12 s leaves time for start-up and a clean exit.
    const [run, plan] = await Promise.all([
      runCliProcess(['run', '--config', config], { timeoutMs: 12_000 }),
      runCli(['plan', '--config', config], { timeoutMs: 12_000 }),
    ]);
    for (const outcome of [run, plan]) {
      expect(outcome.stdout + outcome.stderr).not.toContain(password);
      expectOneLine(outcome, 1, 'cannot reach Redis at redis://127.0.0.1:1');
    }
  }, 30_000);
});
