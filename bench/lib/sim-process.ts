/**
 * The simulator in its own process, so on a 2-core machine it gets a core of its own instead of
 * sharing the benchmark's event loop. Started by `startSimProcess`; prints one JSON line with its
 * URL, admin token and a reading of its clock paired with the monotonic clock, then runs until its
 * stdin closes (the parent exiting closes it too, so it can never outlive the benchmark).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type SimulatorOptions, startSimulator } from '../../src/sim/index.ts';

export interface SimProcess {
  url: string;
  adminToken: string;
  /** Sim time (ms) at monotonic time `monoMs` (see `monotonicMs`), read back to back. */
  simMs: number;
  monoMs: number;
  close(): Promise<void>;
}

/** CLOCK_MONOTONIC in ms: the same clock in every process of the machine, never stepped. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export async function startSimProcess(options: SimulatorOptions): Promise<SimProcess> {
  const script = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`simulator process exited with ${code}`);
    }),
  ])) as [string];
  const ready = JSON.parse(first) as Omit<SimProcess, 'close'>;
  return {
    ...ready,
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin?.end();
      await exited;
    },
  };
}

async function main(options: SimulatorOptions): Promise<void> {
  const sim = await startSimulator(options);
  const simMs = sim.clock.now();
  const monoMs = monotonicMs();
  process.stdout.write(`${JSON.stringify({ url: sim.url, adminToken: sim.adminToken, simMs, monoMs })}\n`);
  process.stdin.resume();
  await once(process.stdin, 'end');
  await sim.close();
  process.exit(0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(JSON.parse(process.argv[2] ?? '{}'));
