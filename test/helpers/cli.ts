/**
 * The one way tests run the real CLI (`node bin/shelfwatch.mjs …`) or another node script: a child
 * process with a clean environment (PATH and the leftover-check marks only, so no REDIS_URL or
 * SHELFWATCH_CONFIG of the machine leaks in), stdin closed after `stdin`, and a deadline.
 */
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  /** The process is killed after this long (default 20 s). */
  timeoutMs?: number;
  /** How it is killed at the deadline; default SIGKILL. */
  killSignal?: NodeJS.Signals;
  /** Written to stdin before it is closed (a command reading `-` gets it, then end of file). */
  stdin?: string;
  /** Run through `sh -c` instead (for arguments with bytes that are not UTF-8). */
  shell?: string;
  /** Run this script instead of the CLI. */
  script?: string;
}

/** Runs the real CLI (or `options.script`) and never waits past its deadline. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliOutcome> {
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
    child.kill(options.killSignal ?? 'SIGKILL');
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
 * Runs many CLI invocations, at most `concurrency` at a time: each start of the CLI compiles its
 * TypeScript and costs a second or two of CPU, and the test machine may have two cores.
 */
export async function runCliMany(
  runs: readonly { args: readonly string[]; options?: CliOptions }[],
  concurrency = 3,
): Promise<CliOutcome[]> {
  const outcomes: CliOutcome[] = new Array(runs.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < runs.length) {
      const at = next;
      next += 1;
      const run = runs[at];
      if (run !== undefined) outcomes[at] = await runCli(run.args, run.options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, lane));
  return outcomes;
}
