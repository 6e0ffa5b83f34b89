/**
 * Each workspace's API contract (api.contract), loaded, checked and compiled once: at config load,
 * where a broken file is a config problem (validate exits 2), and again for the runtime from a cache.
 */
import { resolve } from 'node:path';
import { type CompiledContract, defaultContract, loadContractFile } from '../api/index.ts';
import type { ConfigProblem } from '../config-kit/problems.ts';
import type { ShelfwatchConfig, WorkspaceConfig } from './schema.ts';

const compiled = new Map<string, CompiledContract>();

/** The problems of every workspace's contract file, each naming the file, the place in it and the fix. */
export function checkWorkspaceContracts(config: ShelfwatchConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  config.workspaces.forEach((ws, index) => {
    if (ws.api === undefined) return;
    const file = resolve(ws.api.contract);
    const load = loadContractFile(file);
    if (load.ok) {
      compiled.set(file, load.contract);
      return;
    }
    for (const problem of load.problems) {
      problems.push({
        path: `workspaces[${index}].api.contract`,
        message: `${file}: ${problem.path}: ${problem.message}`,
        ...(problem.hint === undefined ? {} : { hint: problem.hint }),
      });
    }
  });
  return problems;
}

/** The compiled contract of a workspace (the default when it names none); throws on a broken file. */
export function workspaceContract(ws: Pick<WorkspaceConfig, 'api'>): CompiledContract {
  if (ws.api === undefined) return defaultContract();
  const file = resolve(ws.api.contract);
  const cached = compiled.get(file);
  if (cached !== undefined) return cached;
  const load = loadContractFile(file);
  if (!load.ok) {
    const first = load.problems[0];
    throw new Error(`api.contract ${file}: ${first?.path}: ${first?.message}`);
  }
  compiled.set(file, load.contract);
  return load.contract;
}
