/**
 * The workspace a command acts for, from its flag. Apart from format.ts because it needs the
 * config's schema, and program.ts (which every start of the binary loads, `--help` and a bad flag
 * included) imports format.ts: loading the schema there cost every start about 0.8 CPU-s.
 */
import {
  type ShelfwatchConfig,
  UnknownWorkspaceError,
  type WorkspaceConfig,
  workspaceOf,
} from '../config/schema.ts';
import { usageError } from './errors.ts';

/**
 * The workspace a command acts for: `--workspace ID`, or the only one the config has. With several
 * and no flag, a usage error lists them, since guessing would spend the wrong workspace's budget.
 */
export function pickWorkspace(config: ShelfwatchConfig, id: string | undefined): WorkspaceConfig {
  if (id === undefined) {
    const [only, ...others] = config.workspaces;
    if (only !== undefined && others.length === 0) return only;
    const known = config.workspaces.map((ws) => ws.id).join(', ');
    throw usageError(`the config has several workspaces: pass --workspace (one of ${known})`);
  }
  return workspaceFromFlag(config, id);
}

/**
 * `workspaceOf` for a command line: an unknown id is a usage error (exit 2) that names the flag
 * (or the command, for an argument) and the known workspaces.
 */
export function workspaceFromFlag(
  config: ShelfwatchConfig,
  id: string,
  flag = '--workspace',
): WorkspaceConfig {
  try {
    return workspaceOf(config, id);
  } catch (error) {
    if (!(error instanceof UnknownWorkspaceError)) throw error;
    const known = config.workspaces.map((ws) => ws.id).join(', ');
    throw usageError(`${flag}: no workspace "${id}" in the config (known: ${known})`);
  }
}
