import { formatProblems, type LoadConfigResult, loadConfig } from '../config/load.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { CliError } from './errors.ts';
import type { CliIo } from './io.ts';
import { readStdin } from './terminal.ts';

/** The shared `--config` option text, so every command describes the lookup the same way. */
export const CONFIG_OPTION_HELP =
  'config file, - for stdin (default: $SHELFWATCH_CONFIG, else ./shelfwatch.yaml, else the PUBLISHING_API_* environment)';

/**
 * Loads the config as `--config` and the command's environment say: `configPath` is `--config FILE`
 * (`-`: stdin); without it `SHELFWATCH_CONFIG`, `./shelfwatch.yaml`, then the environment-only mode.
 * `where` names it for messages.
 */
export function loadConfigFrom(
  io: CliIo,
  configPath: string | undefined,
): LoadConfigResult & { where: string } {
  const result = loadConfig({
    env: io.env,
    cwd: io.cwd,
    ...(configPath === '-' ? { text: readStdin('--config', io) } : {}),
    ...(configPath === undefined ? {} : { path: configPath }),
  });
  const where =
    result.source === undefined
      ? 'config'
      : result.source.kind === 'env'
        ? 'environment config'
        : configPath === '-'
          ? '(stdin)'
          : result.source.path;
  return { ...result, where };
}

/**
 * Loads the config for a command, or throws a usage error (exit 2) listing every problem, one
 * `path: message (hint)` line each, so the person can fix them all in one go.
 */
export function loadConfigOrThrow(io: CliIo, configPath: string | undefined): ShelfwatchConfig {
  const result = loadConfigFrom(io, configPath);
  if (result.ok) return result.config;
  const { where } = result;
  const count = result.problems.length;
  const indented = formatProblems(result.problems)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  throw new CliError(`${where}: ${count} problem${count === 1 ? '' : 's'}\n${indented}`, { exitCode: 2 });
}
