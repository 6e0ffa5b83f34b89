/**
 * The fleet part of the memory benchmark: runs lib/fleet-worker.ts as a child process (its RSS is
 * then its own) and measures Redis `used_memory` around it. The worker runs either through tsx
 * (as `npx shelfwatch` does) or as the Docker image runs it: compiled JavaScript with the image's
 * NODE_OPTIONS, read from the Dockerfile so the two cannot drift apart.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { type BenchContext, deletePrefix } from './context.ts';
import type { FleetOptions, FleetReport } from './fleet-worker.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

/** The NODE_OPTIONS the Dockerfile sets with ENV, split into node arguments. */
export function imageNodeOptions(): string[] {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  // `ENV NODE_OPTIONS="…"`, or one of several pairs of an ENV continued over lines with `\`.
  const value = /^ENV\b(?:[^\n]*\\\n)*?[^\n]*?\bNODE_OPTIONS=(?:"([^"]*)"|(\S+))/m.exec(dockerfile);
  if (value === null) throw new Error('Dockerfile sets no NODE_OPTIONS');
  return (value[1] ?? value[2] ?? '').split(/\s+/).filter((arg) => arg !== '');
}

/**
 * Compiles src/, workers/ and bench/lib/ with the build's settings into a folder inside the
 * repository (so node_modules and package.json resolve as they do for dist/); returns the path of
 * the compiled fleet worker and a function that removes the build.
 */
export async function buildFleetWorker(): Promise<{ script: string; remove: () => void }> {
  const outDir = join(ROOT, '.shelfwatch', `bench-build-${process.pid}`);
  mkdirSync(outDir, { recursive: true });
  const config = join(outDir, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: '../../tsconfig.build.json',
      compilerOptions: { outDir: '.', rootDir: '../..', sourceMap: false },
      include: ['../../src', '../../workers', '../../bench/lib'],
    }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', config], { cwd: ROOT });
  return {
    script: join(outDir, 'bench', 'lib', 'fleet-worker.js'),
    remove: () => rmSync(outDir, { recursive: true, force: true }),
  };
}

/**
 * One fleet run. `compiledScript` runs that compiled worker with plain node; without it the
 * TypeScript worker runs through tsx. `nodeArgs` go before the script either way.
 */
export async function fleetMemory(
  ctx: BenchContext,
  sizes: number[],
  nodeArgs: string[],
  compiledScript?: string,
): Promise<{ usedMemory: number; report: FleetReport }> {
  const redis = ctx.redis();
  const prefix = ctx.prefix('fleet');
  const before = await usedMemory(redis);
  const options: FleetOptions = { redisUrl: ctx.redisUrl, prefix, sizes };
  const entry =
    compiledScript === undefined ? ['--import', 'tsx', join(HERE, 'fleet-worker.ts')] : [compiledScript];
  const args = [...nodeArgs, '--expose-gc', ...entry, JSON.stringify(options)];
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
  const how = compiledScript === undefined ? 'tsx' : 'compiled';
  ctx.log(
    `fleet (${how}) ${nodeArgs.join(' ')}: ${report.books} books, ${report.polls} polls in ${report.seconds.toFixed(1)} s`,
  );
  // The next fleet measures its own growth: this one's keys go now, not at the end.
  await deletePrefix(redis, prefix);
  return { usedMemory: after - before, report };
}
