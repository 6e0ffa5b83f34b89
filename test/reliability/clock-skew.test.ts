/**
 * Two `shelfwatch run` workers on one private Redis, one of them under libfaketime 30 s ahead
 * (Debian's `faketime`): the good polls are shared within 40/60, none of them is thrown away as a
 * "duplicate", the API's per-minute limit is never passed, and the skewed worker says its skew
 * (a warning line and `shelfwatch_clock_skew_seconds`).
 */
import { afterAll, expect, it } from 'vitest';
import { startPrivateRedis } from '../../src/tools/private-redis.ts';
import { tempDir } from '../config/helpers.ts';
import { writeConfig } from '../helpers/cli.ts';
import { faketimeWrapper, type RunProcess, startRun } from '../helpers/run-process.ts';
import { startSimFixture } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseExposition } from '../ops/exposition.ts';

const KEY = 'sk_clock_skew_0123456789';
const PER_MINUTE = 90;
const BOOKS = 6;
const RUN_MS = 120_000;
const AHEAD = faketimeWrapper('+30s');
const haveFaketime = AHEAD !== undefined;
// CI (.ci/run) installs faketime and sets this: there a missing faketime fails instead of skipping.
if (!haveFaketime && process.env.SHELFWATCH_REQUIRE_FAKETIME === '1') {
  throw new Error("faketime is missing: install Debian's faketime (apt-get install faketime)");
}

const releases: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const release of releases.reverse()) await release();
});

/** The sum of a family's samples whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string> = {}): number {
  return parseExposition(text)
    .samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

async function metricsOf(worker: RunProcess): Promise<string> {
  const listening = await worker.waitForLine(
    'its metrics server',
    (l) => l.msg === 'health and metrics listening',
    60_000,
  );
  const answer = await fetch(`${String(listening.url)}/metrics`);
  return answer.text();
}

it.skipIf(!haveFaketime)(
  'two workers, one 30 s ahead: good polls split within 40/60, none thrown away, the minute limit held, the skew said',
  async () => {
    const redis = await startPrivateRedis();
    releases.push(() => redis.stop());
    const fx = await startSimFixture({
      seed: 27,
      books: BOOKS,
      key: KEY,
      workspace: 'ws',
      plan: `custom:${PER_MINUTE}:10000000`,
    });
    releases.push(() => fx.close());
    const file = writeConfig(tempDir(), 'run.json', {
      redis: { url: redis.url, prefix: '{skew}' },
      server: { port: 0 },
      workspaces: [
        {
          id: 'ws',
          baseUrl: fx.url,
          apiKey: KEY,
          plan: fx.plan,
          sales: false,
          books: fx.world.books.map((b) => ({ asin: b.asin, marketplaces: [b.marketplaces[0] ?? 'US'] })),
          cadence: { book: '10s', keywords: '10s' },
        },
      ],
      channels: [{ id: 'log', type: 'log' }],
    });
    const right = startRun(file);
    const ahead = startRun(file, { wrapper: AHEAD });
    const workers = [right, ahead];
    for (const w of workers) releases.push(() => w.kill());
    for (const w of workers) {
      await w.waitForLine('a worker running', (l) => l.msg.startsWith('shelfwatch running'), 90_000);
    }
    const firstSeq = await fx.control.lastSeq();
    const startedAt = Date.now();
    await waitFor('the run', () => Date.now() - startedAt >= RUN_MS, RUN_MS + 10_000, 1_000);
    const [rightText, aheadText] = await Promise.all([metricsOf(right), metricsOf(ahead)]);
    const requests = await fx.control.requestsSince(firstSeq);

    const ok = [rightText, aheadText].map((t) => total(t, 'shelfwatch_polls_total', { outcome: 'ok' }));
    const duplicates = [rightText, aheadText].map((t) =>
      total(t, 'shelfwatch_polls_total', { outcome: 'duplicate' }),
    );
    const refused = requests.filter((r) => r.status === 429).length;
    const byMinute = new Map<number, number>();
    for (const r of requests.filter((q) => q.counted)) {
      const minute = Math.floor(Date.parse(r.real_time) / 60_000);
      byMinute.set(minute, (byMinute.get(minute) ?? 0) + 1);
    }
    const skewLine = ahead.lines.find((l) => l.level === 40 && String(l.msg).includes('clock'));
    const [okRight = 0, okAhead = 0] = ok;
    const share = okRight / (okRight + okAhead);
    console.log(
      `skew 30 s: good polls ${okRight} (right clock) / ${okAhead} (30 s ahead), share ${(share * 100).toFixed(0)}%; ` +
        `duplicates ${duplicates.join(' / ')}; ${requests.length} requests, ${refused} answered 429, ` +
        `busiest calendar minute ${Math.max(0, ...byMinute.values())} of ${PER_MINUTE}; ` +
        `skew gauge ${total(aheadText, 'shelfwatch_clock_skew_seconds')} s / ${total(rightText, 'shelfwatch_clock_skew_seconds')} s`,
    );
    expect(okRight + okAhead).toBeGreaterThan(BOOKS * 10);
    expect(share).toBeGreaterThanOrEqual(0.4);
    expect(share).toBeLessThanOrEqual(0.6);
    expect(duplicates).toEqual([0, 0]);
    expect(refused).toBe(0);
    expect(skewLine, 'a warning about the clock').toBeDefined();
    expect(total(aheadText, 'shelfwatch_clock_skew_seconds')).toBeGreaterThan(25);
    expect(Math.abs(total(rightText, 'shelfwatch_clock_skew_seconds'))).toBeLessThan(5);
    for (const w of workers) expect(await w.stop()).toBe(0);
  },
  300_000,
);
