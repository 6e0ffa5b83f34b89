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
// 38 books polled every 10 s (book and keywords: 76 targets, 456 polls a minute) against a plan
// of 570: the cadence and the 30 s skew as they were with six books on 90, and the demand at 80% of
// the minute limit as it was, so no poll waits for the budget (a deferred poll and the scheduler's
// next may meet at one planned time: a duplicate that is not the skew's). The sample comes six
// times as fast, and each worker gets six times the slots: the slots must stay mostly idle, as
// with 12 targets on 4, or a worker taking polls early is held back by its own busy slots and
// gives neither duplicates nor much of a lean (measured without the correction: 4 slots, 22% and
// no duplicate; 24 slots, 33% and 25 duplicates; the old run 10% and 5).
const PER_MINUTE = 570;
const BOOKS = 38;
const CADENCE = '10s';
const POLL_CONCURRENCY = 24;
/**
 * Good polls counted from the moment both workers run. Each poll goes to one worker or the other;
 * for fair workers the share is about Binomial(n, 0.5)/n, σ = 0.5/√n: 2.9% at 300 (4.2% at the
 * old run's 145), so the 40/60 bounds are 3.5σ away for that part. It is not the whole spread: a
 * run also leans as a whole, one way or the other (BullMQ gives a due job to the worker whose
 * clock says so first, and the two corrected clocks still differ by a millisecond or so). Six
 * runs at load 4–15 gave 58, 54, 45, 52, 40 and 59%: σ ≈ 7.5% between runs, of which the sample
 * now adds less than before (√(7.5² − 2.9²) ≈ 6.9% is the lean; with 145 polls the same lean gave
 * about 8.1%). Without the correction a run gave 33% and 25 duplicates.
 */
const SAMPLE = 300;
const SAMPLE_DEADLINE_MS = 150_000;
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

function minuteOf(isoTime: string): number {
  return Math.floor(Date.parse(isoTime) / 60_000);
}

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

const okPolls = (text: string) => total(text, 'shelfwatch_polls_total', { outcome: 'ok' });

it.skipIf(!haveFaketime)(
  'two workers, one 30 s ahead: good polls split within 40/60, none thrown away, the minute limit held, the skew said',
  async () => {
    const [redis, fx] = await Promise.all([
      startPrivateRedis(),
      startSimFixture({
        seed: 27,
        books: BOOKS,
        key: KEY,
        workspace: 'ws',
        plan: `custom:${PER_MINUTE}:10000000`,
      }),
    ]);
    releases.push(
      () => redis.stop(),
      () => fx.close(),
    );
    const file = writeConfig(tempDir(), 'run.json', {
      redis: { url: redis.url, prefix: '{skew}' },
      server: { port: 0 },
      workers: { pollConcurrency: POLL_CONCURRENCY },
      workspaces: [
        {
          id: 'ws',
          baseUrl: fx.url,
          apiKey: KEY,
          plan: fx.plan,
          sales: false,
          books: fx.world.books.map((b) => ({ asin: b.asin, marketplaces: [b.marketplaces[0] ?? 'US'] })),
          cadence: { book: CADENCE, keywords: CADENCE },
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
    // The polls either worker made alone before the other ran are left out of the share.
    const before = (await Promise.all(workers.map(metricsOf))).map(okPolls);
    // Until the sample is in and the requests have crossed a minute of the API's: its limit is
    // per calendar minute, so a run inside one minute would not test the window's turn.
    let texts: string[] = [];
    let requests: Awaited<ReturnType<typeof fx.control.requestsSince>> = [];
    const minutes = () => new Set(requests.filter((r) => r.counted).map((r) => minuteOf(r.real_time)));
    await waitFor(
      `${SAMPLE} good polls over a minute boundary`,
      async () => {
        texts = await Promise.all(workers.map(metricsOf));
        requests = await fx.control.requestsSince(firstSeq);
        const sampled = texts.reduce((sum, t, i) => sum + okPolls(t) - (before[i] ?? 0), 0);
        return sampled >= SAMPLE && minutes().size >= 2;
      },
      SAMPLE_DEADLINE_MS,
      1_000,
    );
    const [rightText = '', aheadText = ''] = texts;
    const ok = texts.map((t, i) => okPolls(t) - (before[i] ?? 0));
    const duplicates = [rightText, aheadText].map((t) =>
      total(t, 'shelfwatch_polls_total', { outcome: 'duplicate' }),
    );
    const refused = requests.filter((r) => r.status === 429).length;
    const byMinute = new Map<number, number>();
    for (const r of requests.filter((q) => q.counted)) {
      const minute = minuteOf(r.real_time);
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
    expect(okRight + okAhead).toBeGreaterThanOrEqual(SAMPLE);
    expect(byMinute.size, 'calendar minutes the requests spanned').toBeGreaterThanOrEqual(2);
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
