import { readdirSync, readFileSync } from 'node:fs';

/**
 * Finds processes a test run (or one test file) started and left running. A random mark is put in
 * the environment before anything is spawned; every child inherits it, and so do its children,
 * even once they are orphaned and re-parented to init, which a walk down the process tree would
 * miss. Linux only (/proc/PID/environ); elsewhere nothing is found and the check is a no-op.
 */

/** Set for the whole `vitest` run by test/global-setup.ts. */
export const RUN_MARK = 'SHELFWATCH_TEST_RUN';
/** Set per test file by test/setup-file.ts. */
export const FILE_MARK = 'SHELFWATCH_TEST_FILE';

export interface LeftoverProcess {
  pid: number;
  command: string;
}

function readProc(pid: string, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
}

/** Live processes, other than those in `exclude`, whose environment has `name=value`. */
export function processesMarked(
  name: string,
  value: string,
  exclude: ReadonlySet<number>,
): LeftoverProcess[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  const wanted = `${name}=${value}`;
  const found: LeftoverProcess[] = [];
  for (const pid of pids) {
    if (exclude.has(Number(pid))) continue;
    const environ = readProc(pid, 'environ');
    if (environ === undefined || !environ.split('\0').includes(wanted)) continue;
    // A zombie has exited: its parent just has not reaped it yet.
    if (/^\d+ \(.*\) Z/.test(readProc(pid, 'stat') ?? '')) continue;
    const command = (readProc(pid, 'cmdline') ?? '').split('\0').join(' ').trim();
    found.push({ pid: Number(pid), command });
  }
  return found;
}

/**
 * Waits, up to `timeoutMs`, for the marked processes to end (a worker being torn down, a server
 * finishing its SIGTERM); SIGKILLs those still there at the deadline and returns them.
 */
export async function reapLeftovers(
  name: string,
  value: string,
  exclude: ReadonlySet<number>,
  timeoutMs: number,
): Promise<LeftoverProcess[]> {
  const deadline = Date.now() + timeoutMs;
  let left = processesMarked(name, value, exclude);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = processesMarked(name, value, exclude);
  }
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended between the check and the kill
    }
  }
  return left;
}

export function describeLeftovers(left: readonly LeftoverProcess[]): string {
  return left.map(({ pid, command }) => `  pid ${pid}: ${command.slice(0, 200)}`).join('\n');
}

/**
 * The marks of this run and file, for children given a clean environment (only PATH): with them
 * the leftover checks still see those children.
 */
export function processMarks(): Record<string, string> {
  const marks: Record<string, string> = {};
  for (const name of [RUN_MARK, FILE_MARK]) {
    const value = process.env[name];
    if (value !== undefined) marks[name] = value;
  }
  return marks;
}
