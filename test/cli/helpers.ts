/** Runs the real CLI (`node bin/shelfwatch.mjs`) as a child process, with a config file written by the test. */
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFile } from '../config/helpers.ts';
import { processMarks } from '../helpers/leftover-processes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = resolve(ROOT, 'bin/shelfwatch.mjs');

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Each run of the CLI starts node and tsx and loads the sources: about a second on an idle
 * machine, ten on a busy one. Tests that run it two or three times get this much time.
 */
export const CLI_TEST_TIMEOUT_MS = 90_000;

/** Only PATH (and the test run's leftover-check marks) from the host: no REDIS_URL or SHELFWATCH_CONFIG of the machine can leak in. */
export function shelfwatch(
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
  stdin = '',
): Promise<Outcome> {
  return runNode(BIN, args, env, timeoutMs, stdin);
}

/** Runs a script with this node, from the repository root, with the same clean environment and `stdin`. */
export function runNode(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
  stdin = '',
): Promise<Outcome> {
  return new Promise((resolveOutcome) => {
    const child = execFile(
      process.execPath,
      [script, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...processMarks(), ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        // A child killed at the deadline has no exit code: -1 says "hung".
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolveOutcome({ code, stdout, stderr });
      },
    );
    // Always closed: a command reading `-` from stdin gets this text, then end of file.
    child.stdin?.end(stdin);
  });
}

/** Writes a raw config as a file the CLI reads (JSON is YAML). */
export function writeConfig(dir: string, name: string, raw: unknown): string {
  return writeFile(dir, name, JSON.stringify(raw, null, 2));
}

/** Resolves once `check` holds; fails with `what` at the deadline. For state with no event to wait on. */
export async function waitUntil(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolveTick) => setTimeout(resolveTick, 50));
  }
}
