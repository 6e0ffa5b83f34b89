import { beforeAll, describe, expect, it } from 'vitest';
import {
  type BookBody,
  type BookKeyword,
  type ErrorBody,
  type Page,
  type ReviewBody,
  type SalesBody,
  type Series,
  TestSim,
  type WorldBody,
} from './helpers.ts';

let t: TestSim;
let world: WorldBody;

beforeAll(async () => {
  t = await TestSim.start();
  world = await t.world();
});

function rankingsPath(asin: string, keyword: string): string {
  return `/v1/rankings?asin=${asin}&keyword=${encodeURIComponent(keyword)}`;
}

describe('scripted events', () => {
  it('keyword_rank shows in keywords, organic keywords and the current rankings point only', async () => {
    const book = world.books[1]!;
    const keyword = book.keywords[0]!;
    const before = await t.get<Page<Series>>(rankingsPath(book.asin, keyword));
    const answer = await t.control<{ ok: boolean }>('POST', '/_sim/events', {
      type: 'keyword_rank',
      asin: book.asin,
      keyword,
      rank: 42,
    });
    expect(answer.ok).toBe(true);

    const keywords = await t.get<{ data: BookKeyword[] }>(`/v1/books/${book.asin}/keywords`);
    expect(keywords.body.data.find((k) => k.keyword === keyword)?.rank).toBe(42);
    const payload = await t.get<BookBody>(`/v1/books/${book.asin}`);
    expect(payload.body.organic_keywords.find((k) => k.keyword === keyword)?.rank).toBe(42);
    const after = await t.get<Page<Series>>(rankingsPath(book.asin, keyword));
    const points = after.body.data[0]!.points;
    expect(points.at(-1)!.rank).toBe(42);
    expect(points.slice(0, -1)).toEqual(before.body.data[0]!.points.slice(0, -1));

    await t.control('POST', '/_sim/events', { type: 'keyword_rank', asin: book.asin, keyword, rank: null });
    const unranked = await t.get<{ data: BookKeyword[] }>(`/v1/books/${book.asin}/keywords`);
    expect(unranked.body.data.find((k) => k.keyword === keyword)?.rank).toBeNull();

    // An hour later the override still holds, and the earlier point keeps its value.
    await t.advance(3_600_000);
    const later = await t.get<Page<Series>>(rankingsPath(book.asin, keyword));
    expect(later.body.data[0]!.points.slice(-2).map((p) => p.rank)).toEqual([null, null]);
  });

  it('keyword_rank for a keyword the book did not rank for adds it', async () => {
    const book = world.books[2]!;
    await t.control('POST', '/_sim/events', {
      type: 'keyword_rank',
      asin: book.asin,
      keyword: 'brand new keyword',
      rank: 3,
    });
    const keywords = await t.get<{ data: BookKeyword[] }>(`/v1/books/${book.asin}/keywords`);
    expect(keywords.body.data.at(-1)).toMatchObject({ keyword: 'brand new keyword', rank: 3 });
    const series = await t.get<Page<Series>>(rankingsPath(book.asin, 'brand new keyword'));
    const ranks = series.body.data[0]!.points.map((p) => p.rank);
    expect(ranks.at(-1)).toBe(3);
    expect(ranks.slice(0, -1).every((rank) => rank === null)).toBe(true);
    const unfiltered = await t.all<Series>(`/v1/rankings?asin=${book.asin}`);
    expect(unfiltered.items.map((s) => s.keyword)).toContain('brand new keyword');
  });

  it('bsr null removes the rank and a later number restores it', async () => {
    const book = world.books[3]!;
    await t.control('POST', '/_sim/events', { type: 'bsr', asin: book.asin, rank: null });
    const removed = await t.get<BookBody>(`/v1/books/${book.asin}`);
    expect(removed.body.bsr.rank).toBeNull();
    expect(removed.body.bsr.history.at(-1)!.rank).toBeNull();
    await t.control('POST', '/_sim/events', { type: 'bsr', asin: book.asin, marketplace: 'US', rank: 1234 });
    const restored = await t.get<BookBody>(`/v1/books/${book.asin}`);
    expect(restored.body.bsr.rank).toBe(1234);
  });

  it('review appears first, verbatim, and remove_review takes it away', async () => {
    const campaign = world.campaigns[0]!;
    const now = (await t.world()).now;
    const hostile = '<!channel> <script>alert("x")</script> & "quotes" \\ back\nslash\u2028 \u{1F4A9}';
    const added = await t.control<{ ok: boolean; review_id: string }>('POST', '/_sim/events', {
      type: 'review',
      campaign_id: campaign.campaign_id,
      platform: 'goodreads',
      rating: 2,
      title: '<b>meh</b>',
      body: hostile,
      reviewer: 'Mallory <@U123>',
    });
    expect(added.review_id).toMatch(/^rev_/);
    const list = await t.get<Page<ReviewBody>>('/v1/arc/reviews?limit=5');
    expect(list.body.data[0]).toEqual({
      review_id: added.review_id,
      campaign_id: campaign.campaign_id,
      asin: campaign.asin,
      platform: 'goodreads',
      rating: 2,
      title: '<b>meh</b>',
      body: hostile,
      reviewer: 'Mallory <@U123>',
      url: null,
      published_at: `${now.slice(0, 19)}Z`,
    });

    await t.control('POST', '/_sim/events', { type: 'remove_review', review_id: added.review_id });
    const after = await t.all<ReviewBody>('/v1/arc/reviews');
    expect(after.items.map((r) => r.review_id)).not.toContain(added.review_id);
    const generated = after.items[0]!.review_id;
    await t.control('POST', '/_sim/events', { type: 'remove_review', review_id: generated });
    const again = await t.all<ReviewBody>('/v1/arc/reviews');
    expect(again.items.map((r) => r.review_id)).not.toContain(generated);
    expect(again.items).toHaveLength(after.items.length - 1);
  });

  it('sales_revision overrides the named figures of that day', async () => {
    const book = world.books[0]!;
    const path = `/v1/sales?asin=${book.asin}&from=2026-11-19&to=2026-11-19`;
    const before = (await t.get<Page<SalesBody>>(path)).body.data[0]!;
    await t.control('POST', '/_sim/events', {
      type: 'sales_revision',
      asin: book.asin,
      marketplace: 'US',
      date: '2026-11-19',
      royalties: '12.34',
    });
    const after = (await t.get<Page<SalesBody>>(path)).body.data[0]!;
    expect(after.royalties).toEqual({ amount: '12.34', currency: 'USD' });
    expect(after.units).toBe(before.units);
    await t.control('POST', '/_sim/events', {
      type: 'sales_revision',
      asin: book.asin,
      marketplace: 'US',
      date: '2026-11-19',
      units: 7,
      ad_spend: '1.00',
    });
    const merged = (await t.get<Page<SalesBody>>(path)).body.data[0]!;
    expect(merged).toMatchObject({ units: 7, royalties: { amount: '12.34' }, ad_spend: { amount: '1.00' } });
  });

  it('refuses bad events with a clear 400 or 404', async () => {
    const book = world.books[0]!;
    const cases: [unknown, number, string][] = [
      [{ type: 'earthquake' }, 400, 'type'],
      [{ type: 'bsr', asin: 'B000000000', rank: 5 }, 404, 'B000000000'],
      [{ type: 'bsr', asin: book.asin, rank: 0 }, 400, 'rank'],
      [{ type: 'keyword_rank', asin: book.asin, keyword: '', rank: 1 }, 400, 'keyword'],
      [
        { type: 'review', campaign_id: 'arc_none', platform: 'amazon', rating: 5, body: 'x', reviewer: 'y' },
        404,
        'arc_none',
      ],
      [
        {
          type: 'review',
          campaign_id: world.campaigns[0]!.campaign_id,
          platform: 'kobo',
          rating: 5,
          body: 'x',
          reviewer: 'y',
        },
        400,
        'platform',
      ],
      [{ type: 'remove_review', review_id: 'rev_nope' }, 404, 'rev_nope'],
      [
        { type: 'sales_revision', asin: book.asin, marketplace: 'US', date: '2026-12-30', units: 1 },
        400,
        'future',
      ],
      [
        { type: 'sales_revision', asin: book.asin, marketplace: 'US', date: '2026-11-01' },
        400,
        'at least one',
      ],
      [
        {
          type: 'sales_revision',
          asin: book.asin,
          marketplace: 'US',
          date: '2026-11-01',
          royalties: '1.234',
        },
        400,
        'royalties',
      ],
    ];
    for (const [event, status, mention] of cases) {
      const reply = await t.controlRaw<ErrorBody>('POST', '/_sim/events', event);
      expect(reply.status, JSON.stringify(event)).toBe(status);
      expect(reply.body.error.message, JSON.stringify(event)).toContain(mention);
    }
    expect((await t.controlRaw('POST', '/_sim/events', '{not json')).status).toBe(400);
  });
});
