import { beforeAll, describe, expect, it } from 'vitest';
import { type BookBody, TestSim, type WorldBody } from './helpers.ts';

let t: TestSim;
let world: WorldBody;

beforeAll(async () => {
  t = await TestSim.start();
  world = await t.world();
});

describe('scripted comp ranks, comp lists and review sentiment', () => {
  it('comp_bsr sets the rank a book payload shows for one comp; comp_titles hides and restores the list', async () => {
    const asin = world.books[0]!.asin;
    const before = (await t.get<BookBody>(`/v1/books/${asin}`)).body;
    const comp = before.comp_titles[0];
    if (comp === undefined) throw new Error(`book ${asin} lists no comps`);
    await t.control('POST', '/_sim/events', { type: 'comp_bsr', asin, comp_asin: comp.asin, rank: 77 });
    const scripted = (await t.get<BookBody>(`/v1/books/${asin}`)).body;
    expect(scripted.comp_titles.find((c) => c.asin === comp.asin)?.bsr).toBe(77);
    expect(scripted.comp_titles.map((c) => c.asin)).toEqual(before.comp_titles.map((c) => c.asin));

    await t.control('POST', '/_sim/events', { type: 'comp_titles', asin, listed: false });
    expect((await t.get<BookBody>(`/v1/books/${asin}`)).body.comp_titles).toEqual([]);
    await t.control('POST', '/_sim/events', { type: 'comp_titles', asin, listed: true });
    expect((await t.get<BookBody>(`/v1/books/${asin}`)).body.comp_titles).toHaveLength(
      before.comp_titles.length,
    );

    const notAComp = await t.controlRaw('POST', '/_sim/events', {
      type: 'comp_bsr',
      asin,
      comp_asin: asin,
      rank: 5,
    });
    expect(notAComp.status).toBe(400);
  });

  it('sentiment sets the average and the shares (derived from the average when left out)', async () => {
    const asin = world.books[1]!.asin;
    await t.control('POST', '/_sim/events', { type: 'sentiment', asin, average_rating: 3.2 });
    const derived = (await t.get<BookBody>(`/v1/books/${asin}`)).body.review_sentiment;
    expect(derived).toMatchObject({ average_rating: 3.2, positive: 0.46, negative: 0.12 });
    await t.control('POST', '/_sim/events', {
      type: 'sentiment',
      asin,
      average_rating: 4,
      positive: 0.5,
      negative: 0.3,
    });
    const given = (await t.get<BookBody>(`/v1/books/${asin}`)).body.review_sentiment;
    expect(given).toMatchObject({ average_rating: 4, positive: 0.5, neutral: 0.2, negative: 0.3 });
    const tooMuch = await t.controlRaw('POST', '/_sim/events', {
      type: 'sentiment',
      asin,
      average_rating: 4,
      positive: 0.8,
      negative: 0.3,
    });
    expect(tooMuch.status).toBe(400);
  });
});
