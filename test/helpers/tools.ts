import { execFileSync } from 'node:child_process';

/** True when `command` is on the PATH and runs (`--version` or the given probe). */
export function hasTool(command: string, probe: readonly string[] = ['--version']): boolean {
  try {
    execFileSync(command, probe, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
