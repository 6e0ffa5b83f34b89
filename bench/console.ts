/**
 * The web console on a large account: 1,000 books × 100 keywords (book and keyword snapshots with
 * two weeks of hourly BSR), 100,000 alerts in the alert log, served by the real console (fastify's
 * inject: server time, no network). Each page is requested in turn for several rounds; the median
 * and the slowest answer per page are reported against the 200 ms goal. The console holds no API
 * client: it cannot spend budget, which the run checks by the month count staying at zero.
 */
import { performance } from 'node:perf_hooks';
import { Runtime } from '../src/app/runtime.ts';
import { buildConsole } from '../src/console/server.ts';
import { BSR_SERIES, RedisHistoryStore } from '../src/history/store.ts';
import type { Alert } from '../src/model/alert.ts';
import { silentLogger } from '../src/ops/logger.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { fmt, ms, table, verdict } from './lib/format.ts';
import { benchAsin } from './lib/keywords.ts';
import { booksConfig } from './lib/month.ts';
import { median } from './lib/stats.ts';

const GOAL_MS = 200;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TOKEN = 'bench-console-token';
const HOST = '127.0.0.1:8466';

/** A book's history as polls write it: a day at a time, each followed by the workers' compact. */
async function seedHistory(
  ctx: BenchContext,
  prefix: string,
  asin: string,
  keywords: number,
  days: number,
  now: number,
  hourlyDays: number,
): Promise<void> {
  const store = new RedisHistoryStore({
    redis: ctx.redis(),
    prefix,
    retentionMs: Math.max(days, 730) * DAY,
    hourlyMs: hourlyDays * DAY,
  });
  const book = { workspace: 'bench', asin, marketplace: 'US' };
  const start = Math.floor(now / DAY) * DAY - days * DAY;
  for (let d = 0; d < days; d++) {
    const hours = Array.from({ length: 24 }, (_, h) => start + d * DAY + h * HOUR);
    const series = Array.from({ length: keywords }, (_, k) => ({
      series: `keyword ${k} of ${Number(asin.slice(-4))}`,
      points: hours.map((at, h) => ({
        at,
        rank: (k + h + d) % 7 === 0 ? null : 1 + ((k * 7 + h + d) % 180),
      })),
    }));
    series.push({ series: BSR_SERIES, points: hours.map((at, h) => ({ at, rank: 1_000 + h * 37 + d })) });
    const at = Math.min(now, start + (d + 1) * DAY + HOUR);
    await store.record(book, series, at);
    await store.compact(book, at);
  }
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const books = ctx.quick ? 100 : 1_000;
  const keywordsPerBook = 100;
  const alerts = ctx.quick ? 10_000 : 100_000;
  const rounds = ctx.quick ? 3 : 7;
  const prefix = ctx.prefix();
  const config = booksConfig(ctx.redisUrl, prefix, books, { alertLog: { maxEntries: alerts * 2 } });
  const runtime = new Runtime({ config, logger: silentLogger(), version: 'bench' });
  await runtime.connect();
  ctx.defer(() => runtime.close());
  const now = Date.now();

  const seedStart = performance.now();
  for (let b = 1; b <= books; b += 1) {
    const asin = benchAsin(b);
    const bsrHistory = Array.from({ length: 14 * 24 }, (_, i) => ({
      at: now - (336 - i) * HOUR,
      rank: 1_000 + i,
    }));
    await runtime.store.commit(
      { workspace: 'bench', kind: 'book', id: `book/${asin}/US` },
      {
        observation: {
          kind: 'book',
          observedAt: now,
          asin,
          marketplace: 'US',
          title: `Book ${b}`,
          author: 'A. Writer',
          bsr: 1_336,
          bsrCategory: 'Kindle Store',
          bsrHistory,
          reviewCount: 10,
          averageRating: 4.2,
        },
        ruleState: undefined,
        committedAt: now,
      },
      0,
    );
    await runtime.store.commit(
      { workspace: 'bench', kind: 'keywords', id: `keywords/${asin}/US` },
      {
        observation: {
          kind: 'keywords',
          observedAt: now,
          asin,
          marketplace: 'US',
          ranks: Array.from({ length: keywordsPerBook }, (_, k) => ({
            keyword: `keyword ${k} of ${b}`,
            rank: k + 1,
          })),
        },
        ruleState: undefined,
        committedAt: now,
      },
      0,
    );
  }
  for (let start = 0; start < alerts; start += 1_000) {
    const batch = Array.from(
      { length: Math.min(1_000, alerts - start) },
      (_, i): { alert: Alert; channels: string[] } => {
        const n = start + i;
        const asin = benchAsin((n % books) + 1);
        return {
          alert: {
            fingerprint: `bench-${n}`,
            workspace: 'bench',
            ruleId: 'keyword-drop',
            kind: 'keyword_rank_drop',
            severity: n % 10 === 0 ? 'critical' : 'warning',
            status: 'firing',
            subject: { asin, marketplace: 'US', keyword: `keyword ${n % keywordsPerBook}` },
            title: `keyword ${n % keywordsPerBook} of ${asin} fell`,
            facts: {},
            observedAt: now - (alerts - n) * 10_000,
          },
          channels: ['log'],
        };
      },
    );
    await runtime.alertLog.record(batch);
  }
  const seedMs = performance.now() - seedStart;
  ctx.log(
    `seeded ${books} books × ${keywordsPerBook} keywords, ${fmt(await runtime.alertLog.size())} alerts in ${ms(seedMs)}`,
  );

  // Side by side: one book with 90 days of hourly history as the earlier layout kept it, one with a
  // year of tiered history (30 hourly days, then daily summaries), both 100 keywords and BSR.
  const hourlyBook = benchAsin(Math.ceil(books / 3));
  const tieredBook = benchAsin(Math.ceil((2 * books) / 3));
  const historyStart = performance.now();
  await seedHistory(ctx, prefix, hourlyBook, keywordsPerBook, 90, now, 90);
  await seedHistory(ctx, prefix, tieredBook, keywordsPerBook, 365, now, 30);
  ctx.log(`seeded 90 hourly days and a tiered year of history in ${ms(performance.now() - historyStart)}`);

  const app = await buildConsole({ runtime, token: TOKEN, host: '127.0.0.1', port: 8466 });
  ctx.defer(() => app.close());
  const login = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${TOKEN}`,
  });
  const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
  const middle = benchAsin(Math.ceil(books / 2));
  const pages: Record<string, string> = {
    overview: '/',
    alerts: '/alerts',
    'alerts, one book': `/alerts?asin=${middle}`,
    'alerts, no match (scan)': '/alerts?kind=royalty_change',
    alert: `/alerts/bench-${alerts - 1}`,
    book: `/books/bench/${middle}/US`,
    'book, 90 days of hourly history (earlier layout), 90 d': `/books/bench/${hourlyBook}/US?range=90d`,
    'book, a year of tiered history, 1 y': `/books/bench/${tieredBook}/US?range=1y`,
    silences: '/silences',
    'dead letters': '/dead-letters',
  };
  const samples = new Map<string, number[]>(Object.keys(pages).map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, url] of Object.entries(pages)) {
      const start = performance.now();
      const res = await app.inject({ url, headers: { host: HOST, cookie } });
      const took = performance.now() - start;
      if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
      samples.get(name)?.push(took);
    }
  }
  const used = (await runtime.budget.usage('bench')).monthUsed;
  const rows = [...samples].map(([name, xs]) => {
    const worst = Math.max(...xs);
    return { name, median: median(xs), worst, met: worst <= GOAL_MS };
  });
  return {
    title: 'Console pages on a large account',
    summary: [
      ...rows.map((r) => ({
        metric: `console ${r.name}: server time (median, slowest of ${rounds})`,
        value: `${ms(r.median)}, ${ms(r.worst)}`,
        goal: `≤ ${GOAL_MS} ms`,
        met: r.met,
      })),
      { metric: 'console: API requests spent', value: String(used), goal: '0', met: used === 0 },
    ],
    details: [
      `${fmt(books)} books × ${keywordsPerBook} keywords, ${fmt(alerts)} alerts in the log; ${rounds} rounds of every page through fastify's inject (server time, no network).`,
      '',
      table(
        ['page', 'median', 'slowest', `goal ≤ ${GOAL_MS} ms`],
        rows.map((r) => [r.name, ms(r.median), ms(r.worst), verdict(r.met)]),
      ),
    ].join('\n'),
    data: { books, keywordsPerBook, alerts, rounds, samples: Object.fromEntries(samples), apiRequests: used },
  };
}
