/**
 * Child process of the memory benchmark: a worker process as `shelfwatch run` builds it (a Runtime
 * from a config of N books, its poll and delivery BullMQ workers started), which then polls every
 * book's keyword target twice through `processPoll` (a baseline and one evaluated poll) with
 * payloads generated here instead of HTTP, and reports its memory. Run as
 * `node --expose-gc --import tsx bench/lib/fleet-worker.ts <json options>`; prints one JSON line.
 */
import { performance } from 'node:perf_hooks';
import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import { type PollDeps, processPoll } from '../../src/poll/processor.ts';
import { keywordsTargetId } from '../../src/poll/targets.ts';
import { benchAsin, keywordList, keywordsPayload, nextSnapshot } from './keywords.ts';
import { payloadClient } from './payload-client.ts';

export interface FleetOptions {
  redisUrl: string;
  prefix: string;
  /** Keyword count of each book, in order. */
  sizes: number[];
}

export interface FleetReport {
  books: number;
  polls: number;
  seconds: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** Peak RSS over the process's life (bytes). */
  maxRss: number;
  /** RSS right after start-up, before any poll. */
  rssAtStart: number;
}

const CONCURRENCY = 4;

async function main(options: FleetOptions): Promise<FleetReport> {
  const started = performance.now();
  const parsed = parseConfig({
    redis: { url: options.redisUrl, prefix: options.prefix },
    workspaces: [
      {
        id: 'fleet',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk_bench_unused',
        plan: 'publisher',
        sales: false,
        // The fleet measures book snapshots with their keywords (the payload client serves no
        // series): auto would pick the hourly rankings series for a fleet this size.
        keywordSource: 'snapshot',
        books: options.sizes.map((n, i) => ({ asin: benchAsin(i + 1), keywords: { top: n } })),
      },
    ],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const runtime = new Runtime({ config: parsed.config, logger: silentLogger(), version: 'bench' });
  await runtime.connect();
  const shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => runtime.close());
  await startWorkers(runtime, shutdown, { reconcile: false });
  global.gc?.();
  const rssAtStart = process.memoryUsage().rss;

  const current = new Map<string, string>();
  const deps: PollDeps = {
    ...runtime.pollDeps,
    clientFor: () => payloadClient((asin) => current.get(asin)!),
    // Alerts are the delivery benchmark's business; here they would only fill the deliver queue.
    alerts: { enqueue: async () => {} },
  };
  const signal = new AbortController().signal;
  let polls = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      for (let i = lane; i < options.sizes.length; i += CONCURRENCY) {
        const asin = benchAsin(i + 1);
        const base = keywordList(10_000 + i, options.sizes[i]!, asin);
        let latest = base;
        for (let p = 1; p <= 2; p++) {
          latest = nextSnapshot(base, latest, i * 7 + p);
          current.set(asin, keywordsPayload(latest));
          const result = await processPoll(
            deps,
            { workspace: 'fleet', targetId: keywordsTargetId(asin, 'US') },
            { signal, pollTimeMs: latest.observedAt },
          );
          if (result.status !== 'ok') throw new Error(`poll of ${asin}: ${JSON.stringify(result)}`);
          polls++;
        }
        current.delete(asin);
      }
    }),
  );
  global.gc?.();
  const memory = process.memoryUsage();
  const report: FleetReport = {
    books: options.sizes.length,
    polls,
    seconds: (performance.now() - started) / 1000,
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    arrayBuffers: memory.arrayBuffers,
    maxRss: process.resourceUsage().maxRSS * 1024,
    rssAtStart,
  };
  await shutdown.run(10_000);
  return report;
}

const report = await main(JSON.parse(process.argv[2] ?? '{}') as FleetOptions);
console.log(JSON.stringify(report));
process.exit(0);
