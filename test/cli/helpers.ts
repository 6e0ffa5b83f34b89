/** The CLI tests' side of test/helpers/cli.ts: its outcome as they read it, and config files written by the test. */
import { writeFile } from '../config/helpers.ts';
import { BIN, runCli } from '../helpers/cli.ts';

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

/** The CLI with `env` besides PATH; a run killed at the deadline has code -1 ("hung"). */
export function shelfwatch(
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
  stdin = '',
): Promise<Outcome> {
  return runNode(BIN, args, env, timeoutMs, stdin);
}

/** Runs a script with this node, from the repository root, with the same clean environment and `stdin`. */
export async function runNode(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
  stdin = '',
): Promise<Outcome> {
  // SIGTERM at the deadline, as these tests always had: a hung command gets its chance to say why.
  const outcome = await runCli(args, { script, env, timeoutMs, stdin, killSignal: 'SIGTERM' });
  return { code: outcome.code ?? -1, stdout: outcome.stdout, stderr: outcome.stderr };
}

/** Writes a raw config as a file the CLI reads (JSON is YAML). */
export function writeConfig(dir: string, name: string, raw: unknown): string {
  return writeFile(dir, name, JSON.stringify(raw, null, 2));
}
