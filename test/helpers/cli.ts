/**
 * The one way tests run the CLI. `runCli` (and `shelfwatch`, its short form) runs the program in
 * this process (`runProgram` of src/cli/program.ts) with buffers for stdout and stderr, a clean
 * environment (PATH and what the test gives, so no REDIS_URL or SHELFWATCH_CONFIG of the machine
 * leaks in), `stdin` as its stdin, and the repository root as its folder: no node, no tsx, no
 * compile per call. `runCliProcess` starts the real binary (`node bin/shelfwatch.mjs …`) or another
 * node script as a child with the same clean environment and a deadline: for what only a process
 * shows (exit codes of the binary, signals, bytes that are not UTF-8 in arguments, a config that
 * blocks a read). `startCli` runs a long-running command (`sim`) in process and stops it as a
 * signal would; `run`, `console` and `demo` are processes.
 */
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo, CliOutput } from '../../src/cli/io.ts';
import { runProgram } from '../../src/cli/program.ts';
import { writeFile } from '../config/helpers.ts';
import { processMarks } from './leftover-processes.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = resolve(ROOT, 'bin/shelfwatch.mjs');

export interface CliOutcome {
  /** Exit code; null when the process was killed (see `signal`, `timedOut`). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** True when the deadline passed and the test killed the process. */
  timedOut: boolean;
}

export interface CliOptions {
  /** The whole environment besides PATH: the host's variables must not leak in. */
  env?: Record<string, string>;
  cwd?: string;
  /** The outcome is `timedOut` after this long (default 20 s); a process is killed then. */
  timeoutMs?: number;
  /** Given as stdin, then end of file (a command reading `-` gets it). */
  stdin?: string;
}

/** A command running in process (`startCli`): its output so far, and the stop a signal would give. */
export interface StartedCli {
  stdout(): string;
  stderr(): string;
  /** What SIGTERM or Ctrl+C is to the real binary: `untilStopped` of the command resolves. */
  stop(signal?: NodeJS.Signals): void;
  /** The outcome once the command returns (or its deadline passes: `timedOut`). */
  outcome: Promise<CliOutcome>;
}

export interface ProcessOptions extends CliOptions {
  /** Run through `sh -c` instead (for arguments with bytes that are not UTF-8). */
  shell?: string;
  /** Run this script instead of the CLI. */
  script?: string;
}

/** Collects what a command writes; never a terminal. */
function buffer(): CliOutput & { text(): string } {
  let text = '';
  return {
    isTTY: false,
    write(chunk: string) {
      text += chunk;
      return true;
    },
    text: () => text,
  };
}

/** Runs `shelfwatch ARGS…` in this process and never waits past its deadline. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliOutcome> {
  return startCli(args, options).outcome;
}

/**
 * Starts `shelfwatch ARGS…` in this process and returns at once: for a long-running command
 * (`sim`) that a test reads while it serves and then stops, as a signal stops the binary.
 */
export function startCli(args: readonly string[], options: CliOptions = {}): StartedCli {
  const started = Date.now();
  const stdout = buffer();
  const stderr = buffer();
  let stop: (signal: NodeJS.Signals) => void = () => {};
  const stopped = new Promise<string>((resolveStop) => {
    stop = resolveStop;
  });
  const io: CliIo = {
    stdout,
    stderr,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    cwd: options.cwd ?? ROOT,
    stdinIsTTY: false,
    readStdin: () => options.stdin ?? '',
    untilStopped: () => stopped,
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolvePromise) => {
    timer = setTimeout(() => resolvePromise(null), options.timeoutMs ?? 20_000);
  });
  const outcome = Promise.race([runProgram(args, io), deadline])
    .then((code) => ({
      code,
      signal: null,
      stdout: stdout.text(),
      stderr: stderr.text(),
      ms: Date.now() - started,
      timedOut: code === null,
    }))
    .finally(() => clearTimeout(timer));
  return {
    stdout: () => stdout.text(),
    stderr: () => stderr.text(),
    stop: (signal = 'SIGTERM') => stop(signal),
    outcome,
  };
}

/** Runs the real CLI (or `options.script`) as a child process, killed (SIGKILL) at its deadline. */
export function runCliProcess(args: readonly string[], options: ProcessOptions = {}): Promise<CliOutcome> {
  const started = Date.now();
  const env = { PATH: process.env.PATH ?? '', ...processMarks(), ...options.env };
  const cwd = options.cwd ?? ROOT;
  const child =
    options.shell === undefined
      ? spawn(process.execPath, [options.script ?? BIN, ...args], { cwd, env })
      : spawn('/bin/sh', ['-c', options.shell], { cwd, env: { ...env, NODE: process.execPath, BIN } });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  // A child that exits before reading its stdin must not fail the test with EPIPE.
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin ?? '');
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 20_000);
  return new Promise((resolvePromise, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        ms: Date.now() - started,
        timedOut,
      });
    });
  });
}

/**
 * Runs many CLI processes, at most `concurrency` at a time: each start of the binary compiles its
 * TypeScript and costs a second or two of CPU, and the test machine may have two cores.
 */
export async function runCliProcessMany(
  runs: readonly { args: readonly string[]; options?: ProcessOptions }[],
  concurrency = 3,
): Promise<CliOutcome[]> {
  const outcomes: CliOutcome[] = new Array(runs.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < runs.length) {
      const at = next;
      next += 1;
      const run = runs[at];
      if (run !== undefined) outcomes[at] = await runCliProcess(run.args, run.options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, lane));
  return outcomes;
}

/** Time for a test that runs a few commands (in process) or a process or two on a busy machine. */
export const CLI_TEST_TIMEOUT_MS = 90_000;

export interface Outcome {
  /** -1: the deadline passed ("hung"). */
  code: number;
  stdout: string;
  stderr: string;
}

/** `runCli` in short: `env` besides PATH, a deadline, stdin. */
export async function shelfwatch(
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
  stdin = '',
): Promise<Outcome> {
  const outcome = await runCli(args, { env, timeoutMs, stdin });
  return { code: outcome.code ?? -1, stdout: outcome.stdout, stderr: outcome.stderr };
}

/** Runs a node script as a process from the repository root, with the clean environment and a deadline. */
export async function runNode(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<Outcome> {
  const outcome = await runCliProcess(args, { script, env, timeoutMs });
  return { code: outcome.code ?? -1, stdout: outcome.stdout, stderr: outcome.stderr };
}

/** Writes a raw config as a file the CLI reads (JSON is YAML). */
export function writeConfig(dir: string, name: string, raw: unknown): string {
  return writeFile(dir, name, JSON.stringify(raw, null, 2));
}
