/**
 * An error a command reports as one line (what, where, what to do) with a chosen exit code:
 * 2 for bad input (flags, config), 1 for a failure at run time (Redis unreachable, API down),
 * 3 for `plan` when the plan does not fit the month (EXIT_PLAN_DOES_NOT_FIT).
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode ?? 1;
  }
}

/** `shelfwatch plan`'s exit status when a workspace's plan does not fit: scripts can gate on it. */
export const EXIT_PLAN_DOES_NOT_FIT = 3;

export function usageError(message: string): CliError {
  return new CliError(message, { exitCode: 2 });
}

/** Parses a whole number flag, or throws a usage error that names the flag and what was found. */
export function parseIntegerFlag(
  flag: string,
  raw: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw usageError(`${flag} expects a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** Parses a positive decimal flag (e.g. a speed factor), or throws a usage error. */
export function parseNumberFlag(flag: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw usageError(`${flag} expects a number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** pino's levels: a `--log-level` outside them is bad input (exit 2), not a crash inside pino. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
