/**
 * Two `shelfwatch run` workers on one private Redis, one of them under libfaketime 30 s ahead
 * (Debian's `faketime`): none of the good polls is thrown away as a "duplicate", none is stamped
 * in Redis's future, neither worker is starved (the share within 30/70), the API's per-minute
 * limit is never passed, and the skewed worker says its skew (a warning line and
 * `shelfwatch_clock_skew_seconds`).
 */
import { Redis } from 'ioredis';
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
 * Good polls counted from the moment both workers run. Each due poll goes to whichever worker's
 * `moveToActive` reaches Redis first (moveToActive-11.lua promotes and claims in one script); both
 * wait for it in `BZPOPMIN` on the queue's marker with a timeout to the due time (worker.js
 * `waitForJob`/`getBlockTimeout`), and Redis ends such timeouts from its event loop (timeout.c,
 * `handleBlockedClientsTimeout` from beforeSleep), so both usually wake in one pass and the faster
 * process wins, not the clock a few milliseconds earlier: runs with the ahead worker's correction
 * moved 5 ms either way gave 48% and 57%. How fast each process answers is a property of the run
 * (the load on the machine, libfaketime in one of them), so a run leans as a whole: seventeen
 * corrected runs at load 3–15 gave 40–60% (mean 53%, σ 5.8% against the sample's binomial 2.9% at
 * 300). The 30/70 bounds are 3.4σ from 50% (2.9σ above that mean) and say only "neither is
 * starved". They do not separate the product without the correction (33%, 28% and 31% in three
 * runs at 24 slots); the duplicates (25, 29 and 18 in those runs) and the completions stamped in
 * Redis's future (220 of 328 in the last, the ahead worker's) do.
 */
const SAMPLE = 300;
const SAMPLE_DEADLINE_MS = 150_000;
/** A completion stamped later than Redis TIME by more than this is on a clock that was not corrected. */
const STAMP_TOLERANCE_MS = 1_000;
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
  'two workers, one 30 s ahead: none thrown away, none stamped ahead of Redis, neither starved (30/70), the minute limit held, the skew said',
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
    // BullMQ keeps each completed job in `completed` scored by the finishing worker's Date.now()
    // (moveToFinished-14.lua): on Redis time when corrected, 30 s in its future when not.
    const inspect = new Redis(redis.url, { lazyConnect: false });
    releases.push(() => inspect.quit());
    const completedKey = '{skew}:poll:completed';
    const [seconds, micros] = await inspect.time();
    const redisNow = Number(seconds) * 1_000 + Number(micros) / 1_000;
    const completed = await inspect.zcard(completedKey);
    const stampedAhead = await inspect.zcount(completedKey, `(${redisNow + STAMP_TOLERANCE_MS}`, '+inf');
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
        `${stampedAhead} of ${completed} completions stamped in Redis's future; ` +
        `skew gauge ${total(aheadText, 'shelfwatch_clock_skew_seconds')} s / ${total(rightText, 'shelfwatch_clock_skew_seconds')} s`,
    );
    expect(okRight + okAhead).toBeGreaterThanOrEqual(SAMPLE);
    expect(byMinute.size, 'calendar minutes the requests spanned').toBeGreaterThanOrEqual(2);
    expect(duplicates).toEqual([0, 0]);
    expect(completed, 'completed poll jobs kept by BullMQ').toBeGreaterThanOrEqual(SAMPLE);
    expect(stampedAhead, "completions stamped in Redis's future").toBe(0);
    expect(share).toBeGreaterThanOrEqual(0.3);
    expect(share).toBeLessThanOrEqual(0.7);
    expect(refused).toBe(0);
    expect(skewLine, 'a warning about the clock').toBeDefined();
    expect(total(aheadText, 'shelfwatch_clock_skew_seconds')).toBeGreaterThan(25);
    expect(Math.abs(total(rightText, 'shelfwatch_clock_skew_seconds'))).toBeLessThan(5);
    for (const w of workers) expect(await w.stop()).toBe(0);
  },
  300_000,
);
