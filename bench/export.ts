/**
 * `shelfwatch export` streams: peak RSS of the real CLI process exporting a year of tiered rank
 * history (BSR and 10 keywords a book: 30 hourly days, then daily summaries) and a year of sales
 * days, for 100 and for 1,000 books. One book is written through the history store (record, then
 * the workers' compact, a day at a time); the others are COPYs of its keys. Peak RSS is the
 * child's VmHWM (/proc), read until it exits.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyBookKey } from '../src/history/keys.ts';
import { BSR_SERIES, RedisHistoryStore } from '../src/history/store.ts';
import type { SalesDay } from '../src/model/observation.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { bytes, fmt, table, times } from './lib/format.ts';
import { benchAsin } from './lib/keywords.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const KEYWORDS = 10;

interface ExportRun {
  books: number;
  table: string;
  peakRss: number;
  outBytes: number;
  seconds: number;
}

async function seed(ctx: BenchContext, prefix: string, books: number, now: number): Promise<void> {
  const redis = ctx.redis();
  const store = new RedisHistoryStore({ redis, prefix });
  const first = { workspace: 'bench', asin: benchAsin(1), marketplace: 'US' };
  const start = Math.floor((now - 365 * DAY) / DAY) * DAY;
  const sales: SalesDay[] = [];
  for (let d = 0; d < 365; d++) {
    const hours = Array.from({ length: 24 }, (_, h) => start + d * DAY + h * HOUR);
    const series = Array.from({ length: KEYWORDS }, (_, k) => ({
      series: `keyword ${k}`,
      points: hours.map((at, h) => ({ at, rank: 1 + ((k * 7 + h + d) % 90) })),
    }));
    series.push({ series: BSR_SERIES, points: hours.map((at, h) => ({ at, rank: 20_000 + h * 37 + d })) });
    const at = Math.min(now, start + (d + 1) * DAY + HOUR);
    await store.record(first, series, at);
    await store.compact(first, at);
    const date = new Date(start + d * DAY).toISOString().slice(0, 10);
    sales.push({
      asin: first.asin,
      marketplace: 'US',
      date,
      units: d % 5,
      royalties: { minor: (d % 5) * 349, currency: 'USD' },
      adSpend: { minor: 120, currency: 'USD' },
    });
  }
  await store.recordSales('bench', sales, now);
  const source = historyBookKey(prefix, 'bench', first.asin, 'US');
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${source}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  for (let b = 2; b <= books; b++) {
    const target = historyBookKey(prefix, 'bench', benchAsin(b), 'US');
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.copy(key, target + key.slice(source.length), 'REPLACE');
    await pipeline.exec();
  }
}

function runExport(
  configFile: string,
  table: string,
  root: string,
): Promise<Omit<ExportRun, 'books' | 'table'>> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin/shelfwatch.mjs'),
      'export',
      table,
      '--format',
      'csv',
      '--from',
      '2000-01-01',
      '-c',
      configFile,
    ],
    { cwd: root, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let outBytes = 0;
  let peakRss = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    outBytes += chunk.length;
  });
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peakRss = Math.max(peakRss, kb * 1024);
    } catch {
      // The process has exited between two samples: the last reading stands.
    }
  };
  const timer = setInterval(sample, 50);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code !== 0) reject(new Error(`export ${table} exited ${code}`));
      else resolve({ peakRss, outBytes, seconds: (performance.now() - started) / 1000 });
    });
  });
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const sizes = ctx.quick ? [10, 100] : [100, 1_000];
  const largest = sizes.at(-1) ?? 1;
  const prefix = ctx.prefix('export');
  const now = Date.now();
  await seed(ctx, prefix, largest, now);
  const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-export-bench-'));
  ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
  const runs: ExportRun[] = [];
  for (const books of sizes) {
    const configFile = join(dir, `books-${books}.json`);
    writeFileSync(
      configFile,
      JSON.stringify({
        redis: { url: ctx.redisUrl, prefix },
        workspaces: [
          {
            id: 'bench',
            baseUrl: 'http://127.0.0.1:9',
            apiKey: 'sk_bench_unused',
            books: Array.from({ length: books }, (_, i) => ({
              asin: benchAsin(i + 1),
              marketplaces: ['US'],
            })),
          },
        ],
      }),
    );
    for (const name of ['ranks', 'sales']) {
      ctx.log(`export ${name}, ${books} books`);
      runs.push({ books, table: name, ...(await runExport(configFile, name, ctx.root)) });
    }
  }
  const of = (books: number, name: string) => runs.find((r) => r.books === books && r.table === name);
  const small = of(sizes[0] ?? 0, 'ranks');
  const big = of(largest, 'ranks');
  const growth = small === undefined || big === undefined ? Number.NaN : big.peakRss / small.peakRss;
  return {
    title: 'Export streams: peak RSS of `shelfwatch export` for a year of history',
    summary: [
      {
        metric: `export ranks, a year × ${fmt(largest)} books (BSR + ${KEYWORDS} keywords): peak RSS`,
        value: bytes(big?.peakRss ?? 0),
        reference: `${fmt(sizes[0] ?? 0)} books ${bytes(small?.peakRss ?? 0)}; ${bytes(big?.outBytes ?? 0)} of CSV`,
        ratio: times(growth),
        goal: '≤ 1.5× the smaller export (bounded, not per book)',
        met: growth <= 1.5,
      },
    ],
    details: [
      `A year of history a book: BSR and ${KEYWORDS} keywords (30 hourly days, then a row a day), 365 sales days. The real CLI, \`shelfwatch export <table> --format csv\`, output read and counted by the parent; peak RSS is the child's VmHWM.`,
      '',
      table(
        ['books', 'table', 'CSV bytes', 'seconds', 'peak RSS'],
        runs.map((r) => [fmt(r.books), r.table, fmt(r.outBytes), fmt(r.seconds, 1), bytes(r.peakRss)]),
      ),
    ].join('\n'),
    data: { runs, keywords: KEYWORDS },
  };
}
