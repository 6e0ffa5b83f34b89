/**
 * A long-running `shelfwatch run` child for tests that kill, restart or skew it: its JSON log lines
 * collected as they come, started (optionally under a wrapper such as `faketime`) and killed by id.
 * The environment is PATH and the leftover-check marks only, as runCli's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { BIN, ROOT } from './cli.ts';
import { processMarks } from './leftover-processes.ts';
import { waitFor } from './wait.ts';

export interface LogLine {
  level: number;
  msg: string;
  time?: number;
  [field: string]: unknown;
}

export interface RunProcess {
  readonly child: ChildProcess;
  /** Every JSON line written to stdout so far. */
  readonly lines: LogLine[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the first line (from `from` on) that `match` accepts, or fails at the deadline. */
  waitForLine(
    what: string,
    match: (line: LogLine) => boolean,
    timeoutMs: number,
    from?: number,
  ): Promise<LogLine>;
  /** SIGKILL, resolved once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM, resolved with the exit code. */
  stop(): Promise<number | null>;
}

/** Where Debian's libfaketime puts its library (the `faketime` package depends on it). */
const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
];

/**
 * A wrapper that runs node with its clock moved by `offset` (libfaketime's syntax, e.g. `+30s`), or
 * undefined without libfaketime. Not the `faketime` command: it forks and waits, and neither
 * passes signals on nor dies with its child, so a kill would leave node running. `env` execs.
 */
export function faketimeWrapper(offset: string): string[] | undefined {
  const library = LIBFAKETIME.find((path) => existsSync(path));
  return library === undefined ? undefined : ['env', `LD_PRELOAD=${library}`, `FAKETIME=${offset}`];
}

export interface RunProcessOptions {
  /** A command that runs node and is replaced by it (exec), e.g. `faketimeWrapper('+30s')`. */
  wrapper?: readonly string[];
  env?: Record<string, string>;
}

/** Starts `shelfwatch run --config FILE`; the caller kills it (`kill`) when its test ends. */
export function startRun(configPath: string, options: RunProcessOptions = {}): RunProcess {
  const command = [...(options.wrapper ?? []), process.execPath, BIN, 'run', '--config', configPath];
  const [file = process.execPath, ...args] = command;
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...processMarks(), ...options.env },
  });
  const lines: LogLine[] = [];
  let partial = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) {
      if (part.trim() === '') continue;
      try {
        lines.push(JSON.parse(part) as LogLine);
      } catch {
        lines.push({ level: 0, msg: part });
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = once(child, 'exit');
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  return {
    child,
    lines,
    stderr: () => stderr,
    waitForLine: (what, match, timeoutMs, from = 0) =>
      waitFor(what, () => lines.slice(from).find(match), timeoutMs, 100),
    kill,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** The review ids the `review_new` alerts of the log channel name, across processes (one per line). */
export function reviewAlertIds(workers: readonly RunProcess[]): string[] {
  return workers.flatMap((w) =>
    w.lines
      .filter((l) => l.kind === 'review_new')
      .map((l) => String((l.subject as { reviewId?: string } | undefined)?.reviewId)),
  );
}
