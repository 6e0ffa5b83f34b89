/**
 * The terminal conventions every command follows: NO_COLOR / FORCE_COLOR for colour, LOG_LEVEL as
 * the default of --log-level, `-` for stdin.
 */
import { Option } from 'commander';
import { LOG_LEVELS, usageError } from './errors.ts';
import type { CliIo } from './io.ts';

/** Reads all of stdin for a `-` argument; a terminal there means nothing was piped in. */
export function readStdin(flag: string, io: Pick<CliIo, 'stdinIsTTY' | 'readStdin'>): string {
  if (io.stdinIsTTY) {
    throw usageError(`${flag} -: stdin is a terminal; pipe the input in (e.g. ${flag} - < file)`);
  }
  return io.readStdin();
}

const FORCE_COLOR_VALUES = ['', '0', '1', '2', '3', 'true', 'false'];

/**
 * Whether to colour output: FORCE_COLOR wins (as in Node itself: "0"/"false" off, ""/"1"-"3"/"true"
 * on), then a non-empty NO_COLOR (no-color.org) turns it off, else colour only on a terminal.
 * Any other FORCE_COLOR is bad input, not silently ignored.
 */
export function colourWanted(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (!FORCE_COLOR_VALUES.includes(force)) {
      throw usageError(`FORCE_COLOR expects one of 0, 1, 2, 3, true, false or empty, got "${force}"`);
    }
    return force !== '0' && force !== 'false';
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY;
}

/**
 * `--log-level`, defaulting to the command's LOG_LEVEL, then `fallback`; a bad value is a usage
 * error (exit 2). The environment is the one the command was given, not the process's.
 */
export function logLevelOption(
  fallback: (typeof LOG_LEVELS)[number],
  env: Readonly<Record<string, string | undefined>>,
): Option {
  const fromEnv = env.LOG_LEVEL;
  const option = new Option('--log-level <level>', 'log level (env: LOG_LEVEL)').choices(LOG_LEVELS);
  if (fromEnv === undefined || fromEnv === '') return option.default(fallback);
  if (!(LOG_LEVELS as readonly string[]).includes(fromEnv)) {
    throw usageError(
      `value '${fromEnv}' from env 'LOG_LEVEL' is invalid for --log-level; allowed: ${LOG_LEVELS.join(', ')}`,
    );
  }
  return option.default(fromEnv);
}
