/**
 * The benchmark suite: `npm run bench [-- --only engine,diff] [--quick] [--full]`.
 *
 * Every benchmark is `bench/<name>.ts` exporting `run(ctx)`; each measures its contenders side by
 * side in alternating rounds of one run and reports ratios, never lone timings (the machine is
 * small and shared). A run writes no tracked file: results go to `.artifacts/bench/<name>.json`
 * (`.quick.json` for smoke runs); `npm run docs:bench` (`--docs-only`) copies the full runs' files
 * to `bench/results/` and rebuilds the generated section of `docs/performance.md` from them.
 *
 * Redis: `REDIS_URL` if set, else a private `redis-server` for the run. Benchmarks only use keys
 * under their own random prefix and delete them when they end.
 */
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { type PrivateRedis, startPrivateRedis } from '../src/tools/private-redis.ts';
import { type BenchmarkModule, createContext } from './lib/context.ts';
import {
  machineFacts,
  publishResults,
  renderDetails,
  type StoredResult,
  saveResult,
  summaryTable,
  updateDocs,
} from './lib/report.ts';

/** In the order of docs/performance.md. */
const BENCHMARKS = [
  'engine',
  'diff',
  'snapshot-bytes',
  'memory',
  'budget',
  'storm',
  'redis-cost',
  'cluster',
  'startup',
  'cli-startup',
  'console',
  'export',
] as const;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      quick: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      'docs-only': { type: 'boolean', default: false },
      scenarios: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(
      `npm run bench [-- --only ${BENCHMARKS.join(',')}] [--quick] [--full]\n` +
        '  results go to .artifacts/bench/*.json (ignored); docs and bench/results/ are untouched\n' +
        '  --quick      short smoke run (.artifacts/bench/*.quick.json, never published)\n' +
        '  --full       the long variants too (the whole budget matrix, 10,000 × 1,000 keywords)\n' +
        '  --scenarios  budget scenarios to run, e.g. studio-1000,publisher-10 (others keep their last result)\n' +
        '  --docs-only  (npm run docs:bench) copy the full runs of .artifacts/bench/ to bench/results/\n' +
        '               and rebuild docs/performance.md from them; run nothing',
    );
    return 0;
  }
  if (values['docs-only'] === true) {
    const published = publishResults(root);
    console.error(
      `bench/results: ${published.length === 0 ? 'nothing new in .artifacts/bench/' : published.join(', ')}`,
    );
    console.error(`docs: ${updateDocs(root, BENCHMARKS)}`);
    return 0;
  }
  const selected = values.only === undefined ? [...BENCHMARKS] : values.only.split(',').map((s) => s.trim());
  const unknown = selected.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}`);
    return 2;
  }
  const quick = values.quick === true;
  const full = values.full === true;
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;

  let server: PrivateRedis | undefined;
  let redisUrl = process.env.REDIS_URL ?? '';
  if (redisUrl === '') {
    server = await startPrivateRedis();
    redisUrl = server.url;
  }
  // An interrupted run must not leave its private redis-server behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`bench: ${signal}, stopping`);
      void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
    });
  }
  const probe = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const stored: StoredResult[] = [];
  try {
    const machine = await machineFacts(probe, server === undefined ? 'REDIS_URL' : 'private');
    console.error(
      `bench: ${selected.join(', ')}${quick ? ' (quick)' : ''}${full ? ' (full)' : ''}; ` +
        `Redis ${machine.redis} at ${server === undefined ? 'REDIS_URL' : 'a private server'}, ` +
        `${machine.cores} cores, Node ${machine.node}, load ${machine.loadBefore.toFixed(2)}`,
    );
    for (const name of selected) {
      const startedAt = new Date().toISOString();
      const start = performance.now();
      const { ctx, close } = createContext({
        name,
        redisUrl,
        privateRedis: server !== undefined,
        quick,
        full,
        scenarios: values.scenarios?.split(',').map((name) => name.trim()),
        root,
      });
      const entry: StoredResult = {
        name,
        startedAt,
        seconds: 0,
        command,
        quick,
        full,
        machine: { ...machine, loadBefore: loadavg()[0] ?? 0 },
      };
      try {
        const module = (await import(`./${name}.ts`)) as BenchmarkModule;
        entry.result = await module.run(ctx);
      } catch (error) {
        entry.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
        console.error(`[${name}] failed: ${entry.error}`);
      } finally {
        await close();
      }
      entry.seconds = Math.round((performance.now() - start) / 100) / 10;
      entry.machine.loadAfter = loadavg()[0] ?? 0;
      const file = saveResult(root, entry);
      console.error(`[${name}] ${entry.seconds} s → ${file}`);
      stored.push(entry);
    }
  } finally {
    await probe.quit();
    await server?.stop();
  }

  console.log(`## Benchmarks (${command})\n`);
  console.log(summaryTable(stored));
  console.log('');
  for (const entry of stored) console.log(renderDetails(entry));
  if (!quick)
    console.error('results in .artifacts/bench/; `npm run docs:bench` publishes them to docs/performance.md');
  return stored.some((entry) => entry.result === undefined) ? 1 : 0;
}

// Exit explicitly: a benchmark that left a handle open must not keep the suite from finishing.
process.exit(await main());
