import { formatProblems, type LoadConfigResult, loadConfig } from '../config/load.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { CliError } from './errors.ts';
import { readStdin } from './terminal.ts';

export interface LoadConfigFlags {
  /** `--config FILE` (`-`: stdin); else `SHELFWATCH_CONFIG`, `./shelfwatch.yaml`, then the environment-only mode. */
  configPath?: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

/** The shared `--config` option text, so every command describes the lookup the same way. */
export const CONFIG_OPTION_HELP =
  'config file, - for stdin (default: $SHELFWATCH_CONFIG, else ./shelfwatch.yaml, else the PUBLISHING_API_* environment)';

/** Loads the config as `--config` and the environment say; `where` names it for messages. */
export function loadConfigFrom(flags: LoadConfigFlags): LoadConfigResult & { where: string } {
  const result = loadConfig({
    env: flags.env,
    ...(flags.configPath === '-' ? { text: readStdin('--config') } : {}),
    ...(flags.configPath === undefined ? {} : { path: flags.configPath }),
    ...(flags.cwd === undefined ? {} : { cwd: flags.cwd }),
  });
  const where =
    result.source === undefined
      ? 'config'
      : result.source.kind === 'env'
        ? 'environment config'
        : flags.configPath === '-'
          ? '(stdin)'
          : result.source.path;
  return { ...result, where };
}

/**
 * Loads the config for a command, or throws a usage error (exit 2) listing every problem, one
 * `path: message (hint)` line each, so the person can fix them all in one go.
 */
export function loadConfigOrThrow(flags: LoadConfigFlags): ShelfwatchConfig {
  const result = loadConfigFrom(flags);
  if (result.ok) return result.config;
  const { where } = result;
  const count = result.problems.length;
  const indented = formatProblems(result.problems)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  throw new CliError(`${where}: ${count} problem${count === 1 ? '' : 's'}\n${indented}`, { exitCode: 2 });
}
