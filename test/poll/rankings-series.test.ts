/**
 * The series source against the simulator and real Redis: polls every 6 h still see a keyword that
 * fell at H and came back at H+3 (alerted once, naming the hour, its recovery too), also across a
 * 12 h outage, and a gap longer than the API's window says how many hours could not be read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisHistoryStore } from '../../src/history/store.ts';
import type { Alert } from '../../src/model/alert.ts';
import { DeferredError as PollDeferredError } from '../../src/model/deferred.ts';
import type { PollResult } from '../../src/poll/processor.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { CapturingSink, createHarness, type Harness, parseOrThrow } from './engine-harness.ts';

const KEY = 'sk_rankings_series_0123456789';
const PLAN = 'custom:100000:10000000';
const HOUR = 3_600_000;
const START = Date.parse('2026-11-02T00:30:00Z');
const prefix = testPrefix('rankings');
const redis = testRedis(prefix);
let harness: Harness;
let sink: CapturingSink;
let asin: string;
let otherAsin: string;
let keywords: string[];
let otherKeywords: string[];
let revisedAsin: string;
let revisedKeyword: string;

const target = () => `keywords/${asin}/US`;
const hourIso = (ms: number) => new Date(ms).toISOString();

function setRank(book: string, keyword: string, rank: number | null): Promise<unknown> {
  return fx.control.event({ type: 'keyword_rank', asin: book, keyword, rank });
}

/** A poll that fails (an error outcome or a deferral) as the outage makes it. */
async function pollThroughOutage(id: string): Promise<PollResult | 'deferred'> {
  try {
    return await harness.poll(id);
  } catch (error) {
    if (error instanceof PollDeferredError) return 'deferred';
    throw error;
  }
}

function drops(keyword: string): Alert[] {
  return sink.alerts.filter((a) => a.subject.keyword === keyword);
}

const fx = useSimulator({
  seed: 33,
  books: 4,
  speed: 0,
  startAt: new Date(START),
  key: KEY,
  workspace: 'ws-rank',
  plan: PLAN,
});

beforeAll(async () => {
  const books = fx.world.books.filter((b) => b.marketplaces.includes('US'));
  const [book, other, third] = books;
  if (book === undefined || other === undefined || third === undefined) {
    throw new Error('the simulator has no three US books');
  }
  revisedAsin = third.asin;
  revisedKeyword = third.keywords[0]!;
  asin = book.asin;
  otherAsin = other.asin;
  keywords = book.keywords.slice(0, 3);
  otherKeywords = other.keywords.slice(0, 2);
  const config = parseOrThrow({
    redis: { prefix },
    workspaces: [
      {
        id: 'ws-rank',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: PLAN,
        keywordSource: 'series',
        books: [
          { asin, marketplaces: ['US'], keywords },
          { asin: otherAsin, marketplaces: ['US'], keywords: otherKeywords },
          { asin: revisedAsin, marketplaces: ['US'], keywords: [revisedKeyword] },
        ],
        sales: false,
      },
    ],
    rules: [
      { id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, unranked: false, sendResolved: true },
      {
        id: 'kw-unranked',
        kind: 'keyword_rank_drop',
        books: [revisedAsin],
        unranked: true,
        sendResolved: true,
      },
    ],
  });
  sink = new CapturingSink();
  harness = createHarness({ sim: fx.sim, redis, prefix, config, sink });
  harness.deps.history = new RedisHistoryStore({ redis, prefix });
  for (const keyword of keywords) await setRank(asin, keyword, 3);
  for (const keyword of otherKeywords) await setRank(otherAsin, keyword, 3);
  // First polls: silent baselines at 00:00.
  expect(await harness.poll(target())).toMatchObject({ status: 'ok', baseline: true, alerts: 0 });
  expect(await harness.poll(`keywords/${otherAsin}/US`)).toMatchObject({ status: 'ok', baseline: true });
  expect(sink.alerts).toEqual([]);
});

afterAll(async () => {
  await harness?.close();
});

describe('keyword ranks from the hourly series', () => {
  it('alerts a drop at H that recovered at H+3 once, naming the hour, with polls 6 h apart', async () => {
    const [fellAndCame, , stayedDown] = keywords as [string, string, string];
    await fx.control.advance(HOUR); // 01:30
    const dropHour = START - 30 * 60_000 + HOUR;
    await setRank(asin, fellAndCame, 40);
    await setRank(asin, stayedDown, 50);
    await fx.control.advance(3 * HOUR); // 04:30
    await setRank(asin, fellAndCame, 3);
    await fx.control.advance(2 * HOUR); // 06:30
    const result = await harness.poll(target());
    expect(result).toMatchObject({ status: 'ok', alerts: 3 });

    const [fell, back] = drops(fellAndCame);
    expect(drops(fellAndCame)).toHaveLength(2);
    expect(fell).toMatchObject({ kind: 'keyword_rank_drop', facts: { hour: hourIso(dropHour), after: 40 } });
    expect(fell?.title).toContain('at 2026-11-02 01:00 UTC');
    expect(back).toMatchObject({
      kind: 'keyword_rank_recovered',
      facts: { hour: hourIso(dropHour + 3 * HOUR) },
    });
    expect(drops(stayedDown)).toMatchObject([
      { kind: 'keyword_rank_drop', facts: { hour: hourIso(dropHour) } },
    ]);

    // Every hour up to the poll's was judged: the stored observation is the 06:00 hour.
    const stored = await harness.store.get({ workspace: 'ws-rank', kind: 'keywords', id: target() });
    expect(stored?.observation.observedAt).toBe(START - 30 * 60_000 + 6 * HOUR);

    // Every judged hour is kept for charts, the drop and the recovery included.
    const history = await harness.deps.history!.read(
      { workspace: 'ws-rank', asin, marketplace: 'US' },
      dropHour - HOUR,
      dropHour + 5 * HOUR,
    );
    expect(history.get(fellAndCame)?.map((p) => p.rank)).toEqual([3, 40, 40, 40, 3, 3, 3]);

    // The drop that persists is not alerted again.
    await fx.control.advance(6 * HOUR); // 12:30
    expect(await harness.poll(target())).toMatchObject({ status: 'ok', alerts: 0 });
    expect(sink.alerts).toHaveLength(3);
  });

  it('catches up after a 12 h outage from the last judged hour, alerting the drop and recovery once', async () => {
    const fellDuringOutage = keywords[1]!;
    const before = sink.alerts.length;
    await fx.control.advance(HOUR); // 13:30
    const dropHour = START - 30 * 60_000 + 13 * HOUR;
    await setRank(asin, fellDuringOutage, 60);
    const outage = {
      kind: 'status' as const,
      status: 503,
      code: 'unavailable',
      count: 1000,
      pathPrefix: '/v1/rankings',
    };
    await fx.control.fault(outage);
    await fx.control.advance(3 * HOUR); // 16:30
    await setRank(asin, fellDuringOutage, 3);
    await fx.control.advance(2 * HOUR); // 18:30
    expect(await pollThroughOutage(target())).not.toMatchObject({ status: 'ok' });
    await fx.control.advance(6 * HOUR); // 00:30 next day
    expect(await pollThroughOutage(target())).not.toMatchObject({ status: 'ok' });
    await fx.control.clearFaults();
    await fx.control.advance(6 * HOUR); // 06:30
    expect(await harness.poll(target())).toMatchObject({ status: 'ok', alerts: 2 });
    const fresh = sink.alerts.slice(before).filter((a) => a.kind !== 'source_health');
    expect(fresh).toMatchObject([
      {
        kind: 'keyword_rank_drop',
        subject: { keyword: fellDuringOutage },
        facts: { hour: hourIso(dropHour) },
      },
      {
        kind: 'keyword_rank_recovered',
        subject: { keyword: fellDuringOutage },
        facts: { hour: hourIso(dropHour + 3 * HOUR), unreadableHours: 0 },
      },
    ]);
    // Polled again at the same time (a retry, a replica): nothing more.
    await fx.control.advance(HOUR);
    expect(await harness.poll(target())).toMatchObject({ status: 'ok', alerts: 0 });
  });

  it('says how many hours could not be read when a gap is longer than the series window', async () => {
    const keyword = otherKeywords[0]!;
    await fx.control.advance(100 * 24 * HOUR);
    await setRank(otherAsin, keyword, 80);
    await fx.control.advance(HOUR);
    const before = sink.alerts.length;
    expect(await harness.poll(`keywords/${otherAsin}/US`)).toMatchObject({ status: 'ok', alerts: 1 });
    const [alert] = sink.alerts.slice(before);
    expect(alert).toMatchObject({ kind: 'keyword_rank_drop', subject: { keyword } });
    // Baseline at 00:00 on day 0 (judged up to there); the poll at 08:30 on day 101 reads back 93 days only.
    const unreadable = (factsOf(alert)?.unreadableHours ?? 0) as number;
    expect(unreadable).toBe(101 * 24 + 8 - 93 * 24 - 1);
    expect(alert?.title).toContain(`the ${unreadable} hours before could not be read`);
  });

  it('waits for a young null that may still gain a rank: a revised point is neither a drop nor a recovery', async () => {
    const id = `keywords/${revisedAsin}/US`;
    const before = sink.alerts.length;
    await setRank(revisedAsin, revisedKeyword, 3);
    expect(await harness.poll(id)).toMatchObject({ status: 'ok', baseline: true });
    await fx.control.advance(HOUR);
    await setRank(revisedAsin, revisedKeyword, null); // this hour reads null for now
    expect(await harness.poll(id)).toMatchObject({ status: 'ok', alerts: 0 });
    await fx.control.advance(10 * 60_000);
    await setRank(revisedAsin, revisedKeyword, 3); // the same hour gains its rank (the contract's revision)
    await fx.control.advance(2 * HOUR);
    expect(await harness.poll(id)).toMatchObject({ status: 'ok', alerts: 0 });
    expect(sink.alerts.slice(before)).toEqual([]);
  });
});
