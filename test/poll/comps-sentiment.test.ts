/**
 * comp_overtook and sentiment_shift end to end: the simulator's book payload (comp ranks and
 * sentiment scripted through its control endpoint), the real poller, real Redis. Each fires once
 * for its scripted event, and never on the baseline poll, a failed poll or an empty comp list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/model/alert.ts';
import type { SimEventInput } from '../../src/sim/control-schemas.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { CapturingSink, createHarness, type Harness, parseOrThrow } from './engine-harness.ts';

const KEY = 'sk_comps_test_0123456789';
const WS = 'ws-comps';
const prefix = testPrefix('comps');
const redis = testRedis(prefix);
const BOOK_RANK = 1_000;
const BEHIND = 1_500;
const AHEAD = 800;
let harness: Harness;
let sink: CapturingSink;
let asin: string;
let comp: string;
let target: string;

const ours = (alerts: readonly Alert[]) =>
  alerts.filter((a) => a.kind.startsWith('comp_') || a.kind.startsWith('sentiment_'));

/** An event about the watched book: the body without its `asin`. */
type BookEventBody<E = SimEventInput> = E extends { asin: string } ? Omit<E, 'asin'> : never;

function event(body: BookEventBody): Promise<unknown> {
  return fx.control.event({ asin, ...body });
}

/** Polls twice: what the first poll raised of our kinds, and checks the second raised nothing. */
async function raisedByNextPoll(): Promise<Alert[]> {
  const before = sink.alerts.length;
  expect(await harness.poll(target)).toMatchObject({ status: 'ok' });
  const raised = ours(sink.alerts.slice(before));
  const settled = sink.alerts.length;
  expect(await harness.poll(target)).toMatchObject({ status: 'ok' });
  expect(ours(sink.alerts.slice(settled)), 'nothing again on the next poll').toEqual([]);
  return raised;
}

const fx = useSimulator({
  seed: 21,
  books: 3,
  key: KEY,
  workspace: WS,
  plan: 'custom:100000:10000000',
});

beforeAll(async () => {
  const world = fx.world;
  const book = world.books.find((b) => b.marketplaces.includes('US'));
  if (book === undefined) throw new Error('the simulator world has no US book');
  asin = book.asin;
  target = `book/${asin}/US`;
  const config = parseOrThrow({
    redis: { prefix },
    workspaces: [
      {
        id: WS,
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:100000:10000000',
        books: [{ asin, marketplaces: ['US'] }],
        sales: false,
      },
    ],
    rules: [
      { id: 'comps', kind: 'comp_overtook', margin: 0.1 },
      { id: 'mood', kind: 'sentiment_shift', minReviews: 0 },
      { id: 'health', kind: 'source_health', failures: 1 },
    ],
  });
  sink = new CapturingSink();
  harness = createHarness({ sim: fx.sim, redis, prefix, config, sink });
  const { data } = await harness.deps.clientFor(WS).getBook(asin, { marketplace: 'US' });
  const first = data.comp_titles[0];
  if (first === undefined) throw new Error(`the simulated book ${asin} lists no comp titles`);
  comp = first.asin;
  // A known starting point: every comp behind the book, a steady sentiment.
  await event({ type: 'bsr', rank: BOOK_RANK });
  for (const c of data.comp_titles) await event({ type: 'comp_bsr', comp_asin: c.asin, rank: BEHIND });
  await event({ type: 'sentiment', average_rating: 4.4, positive: 0.8, negative: 0.06 });
});

afterAll(async () => {
  await harness?.close();
});

describe('comp titles and review sentiment from the book payload', () => {
  it('the baseline poll is silent, and keeps comps and sentiment in the snapshot', async () => {
    expect(await harness.poll(target)).toMatchObject({ status: 'ok', baseline: true, alerts: 0 });
    const stored = await harness.store.get({ workspace: WS, kind: 'book', id: target });
    const book = stored?.observation.kind === 'book' ? stored.observation : undefined;
    expect(book?.compTitles?.find((c) => c.asin === comp)).toMatchObject({ bsr: BEHIND });
    expect(book?.sentiment).toEqual({ positive: 0.8, neutral: 0.14, negative: 0.06 });
    expect(await raisedByNextPoll()).toEqual([]);
  });

  it('a failed poll raises none of them', async () => {
    await event({ type: 'comp_bsr', comp_asin: comp, rank: AHEAD });
    await fx.control.fault({
      kind: 'status',
      status: 503,
      code: 'unavailable',
      count: 10,
      pathPrefix: '/v1/books',
    });
    const before = sink.alerts.length;
    expect(await harness.poll(target)).toMatchObject({ status: 'error' });
    await fx.control.clearFaults();
    expect(sink.alerts.slice(before).map((a) => a.kind)).toEqual(['source_health']);
  });

  it('an empty comp list is no data: nothing fires, and the comps keep their standing', async () => {
    await event({ type: 'comp_titles', listed: false });
    expect(await raisedByNextPoll()).toEqual([]);
  });

  it('comp_overtook fires once when the comp is ahead by the margin, then once more as it falls behind', async () => {
    await event({ type: 'comp_titles', listed: true });
    const ahead = await raisedByNextPoll();
    expect(ahead.map((a) => a.kind)).toEqual(['comp_overtook']);
    expect(ahead[0]?.subject).toEqual({ asin, marketplace: 'US', compAsin: comp });
    expect(ahead[0]?.facts).toMatchObject({ compBsr: AHEAD, bookBsr: BOOK_RANK });
    await event({ type: 'comp_bsr', comp_asin: comp, rank: BEHIND });
    expect((await raisedByNextPoll()).map((a) => a.kind)).toEqual(['comp_fell_behind']);
  });

  it('sentiment_shift fires once when the average rating drops against its baseline', async () => {
    await event({ type: 'sentiment', average_rating: 3.9, positive: 0.8, negative: 0.06 });
    const shifted = await raisedByNextPoll();
    expect(shifted.map((a) => [a.kind, a.subject.measure])).toEqual([['sentiment_shift', 'rating']]);
    expect(shifted[0]?.facts).toMatchObject({ before: 4.4, after: 3.9 });
  });
});
