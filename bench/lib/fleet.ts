/**
 * The fleet part of the memory benchmark: runs lib/fleet-worker.ts as a child process (its RSS is
 * then its own) and measures Redis `used_memory` around it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { type BenchContext, deletePrefix } from './context.ts';
import type { FleetOptions, FleetReport } from './fleet-worker.ts';

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

export async function fleetMemory(
  ctx: BenchContext,
  sizes: number[],
  nodeArgs: string[],
): Promise<{ usedMemory: number; report: FleetReport }> {
  const redis = ctx.redis();
  const prefix = ctx.prefix('fleet');
  const before = await usedMemory(redis);
  const options: FleetOptions = { redisUrl: ctx.redisUrl, prefix, sizes };
  const script = join(dirname(fileURLToPath(import.meta.url)), 'fleet-worker.ts');
  const args = [...nodeArgs, '--expose-gc', '--import', 'tsx', script, JSON.stringify(options)];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`fleet worker exited with ${code}: ${out.slice(-500)}`);
  const report = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as FleetReport;
  const after = await usedMemory(redis);
  ctx.log(
    `fleet ${nodeArgs.join(' ')}: ${report.books} books, ${report.polls} polls in ${report.seconds.toFixed(1)} s`,
  );
  // The next fleet measures its own growth: this one's keys go now, not at the end.
  await deletePrefix(redis, prefix);
  return { usedMemory: after - before, report };
}
