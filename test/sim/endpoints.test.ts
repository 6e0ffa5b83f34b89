import { beforeAll, describe, expect, it } from 'vitest';
import {
  ASIN_RE,
  type BookBody,
  type BookKeyword,
  type ErrorBody,
  type Page,
  type ReviewBody,
  type SalesBody,
  type SearchResult,
  type Series,
  TestSim,
  TIMESTAMP_RE,
  type WorldBody,
} from './helpers.ts';

let t: TestSim;
let world: WorldBody;
let asin: string;

beforeAll(async () => {
  t = await TestSim.start({ books: 12, campaigns: 2 });
  world = await t.world();
  asin = world.books[0]!.asin;
});

describe('GET /v1/books/{asin}', () => {
  it('answers the contract shape with 30 days of hourly history, oldest first', async () => {
    const reply = await t.get<BookBody>(`/v1/books/${asin}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    const book = reply.body;
    expect(book).toMatchObject({
      asin,
      marketplace: 'US',
      title: world.books[0]!.title,
      author: world.books[0]!.author,
    });
    expect(book.bsr.category).toBe('Kindle Store');
    expect(book.bsr.observed_at).toBe('2026-11-21T14:00:00Z');
    expect(book.bsr.history).toHaveLength(720);
    expect(book.bsr.history.at(-1)).toEqual({ at: '2026-11-21T14:00:00Z', rank: book.bsr.rank });
    expect(book.bsr.history[0]!.at).toBe('2026-10-22T15:00:00Z');
    const times = book.bsr.history.map((point) => Date.parse(point.at));
    expect(times.every((time, i) => i === 0 || time - times[i - 1]! === 3_600_000)).toBe(true);
    for (const point of book.bsr.history) {
      expect(point.at).toMatch(TIMESTAMP_RE);
      if (point.rank !== null) expect(Number.isInteger(point.rank) && point.rank >= 1).toBe(true);
    }
    expect(book.organic_keywords.length).toBeGreaterThanOrEqual(10);
    expect(book.organic_keywords[0]!.keyword).toBe(world.books[0]!.keywords[0]);
    expect(book.comp_titles.length).toBeGreaterThanOrEqual(3);
    for (const comp of book.comp_titles) {
      expect(comp.asin).toMatch(ASIN_RE);
      expect(Number.isInteger(comp.bsr)).toBe(true);
    }
    const sentiment = book.review_sentiment;
    expect(sentiment.average_rating).toBeGreaterThanOrEqual(1);
    expect(sentiment.average_rating).toBeLessThanOrEqual(5);
    expect(sentiment.positive + sentiment.neutral + sentiment.negative).toBeCloseTo(1, 5);
  });

  it('serves comparable titles too, and other marketplaces of the book', async () => {
    const book = (await t.get<BookBody>(`/v1/books/${asin}`)).body;
    const comp = await t.get<BookBody>(`/v1/books/${book.comp_titles[0]!.asin}`);
    expect(comp.status).toBe(200);
    const other = world.books.find((b) => b.marketplaces.length > 1)!;
    const market = other.marketplaces[1]!;
    const reply = await t.get<BookBody>(`/v1/books/${other.asin}?marketplace=${market}`);
    expect(reply.status).toBe(200);
    expect(reply.body.marketplace).toBe(market);
  });

  it('answers 400 for a malformed ASIN or marketplace and 404 for an unknown one', async () => {
    for (const bad of ['b0abc12345', 'B0ABC1234', 'B0ABC123456', 'B0ABC1234%21']) {
      const reply = await t.get<ErrorBody>(`/v1/books/${bad}`);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('invalid_request');
      expect(reply.body.error.message).toContain('asin');
      expect(reply.body.error.request_id).toMatch(/^req_/);
    }
    const market = await t.get<ErrorBody>(`/v1/books/${asin}?marketplace=XX`);
    expect(market.status).toBe(400);
    expect(market.body.error.message).toContain('marketplace');
    const unknown = await t.get<ErrorBody>('/v1/books/B000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const notSold = world.books.find((b) => !b.marketplaces.includes('JP'))!;
    expect((await t.get<ErrorBody>(`/v1/books/${notSold.asin}?marketplace=JP`)).status).toBe(404);
  });

  it('answers 400 for an unknown query parameter, naming it', async () => {
    const reply = await t.get<ErrorBody>(`/v1/books/${asin}?marketplce=US`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain('"marketplce"');
    const twice = await t.get<ErrorBody>(`/v1/books/${asin}?marketplace=US&marketplace=UK`);
    expect(twice.status).toBe(400);
  });

  it('answers 404 not_found for unknown paths and methods', async () => {
    expect((await t.get<ErrorBody>('/v1/nothing')).body.error.code).toBe('not_found');
    expect((await t.request<ErrorBody>('DELETE', `/v1/books/${asin}`)).status).toBe(404);
  });
});

describe('GET /v1/books/{asin}/keywords', () => {
  it('lists keywords by traffic share, at most 1,000, and one book has exactly 1,000', async () => {
    const reply = await t.get<{ asin: string; data: BookKeyword[] }>(`/v1/books/${asin}/keywords`);
    expect(reply.status).toBe(200);
    expect(reply.body.asin).toBe(asin);
    const data = reply.body.data;
    expect(data).toHaveLength(1000);
    expect(new Set(data.map((item) => item.keyword)).size).toBe(1000);
    expect(data.every((item, i) => i === 0 || item.traffic_share <= data[i - 1]!.traffic_share)).toBe(true);
    expect(data.some((item) => item.rank === null)).toBe(true);
    expect(data.some((item) => item.rank !== null)).toBe(true);
    for (const item of data.slice(0, 50)) {
      expect(Number.isInteger(item.search_volume)).toBe(true);
      expect(item.traffic_share).toBeGreaterThanOrEqual(0);
    }
    const sizes = await Promise.all(
      world.books
        .slice(1)
        .map(
          async (b) =>
            (await t.get<{ data: BookKeyword[] }>(`/v1/books/${b.asin}/keywords`)).body.data.length,
        ),
    );
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1000);
  });

  it('refuses list parameters the endpoint does not take', async () => {
    const reply = await t.get<ErrorBody>(`/v1/books/${asin}/keywords?limit=10`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain('limit');
  });
});

describe('GET /v1/keywords/search', () => {
  it('pages through a broad query with opaque cursors, with no item twice', async () => {
    const { items, pages } = await t.all<SearchResult>('/v1/keywords/search?q=mystery&limit=100');
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(items.map((item) => item.keyword)).size).toBe(items.length);
    expect(items.every((item, i) => i === 0 || item.search_volume <= items[i - 1]!.search_volume)).toBe(true);
    for (const item of items) {
      expect(item.keyword).toContain('mystery');
      expect(item.competition).toBeGreaterThanOrEqual(0);
      expect(item.competition).toBeLessThanOrEqual(1);
      expect(item.intent_score).toBeGreaterThanOrEqual(0);
      expect(item.intent_score).toBeLessThanOrEqual(1);
    }
    const first = await t.get<Page<SearchResult>>('/v1/keywords/search?q=mystery');
    expect(first.body.data).toHaveLength(50);
  });

  it('answers a narrow query on one page', async () => {
    const reply = await t.get<Page<SearchResult>>('/v1/keywords/search?q=cozy%20cat%20mystery%20in%20paris');
    expect(reply.status).toBe(200);
    expect(reply.body.next_cursor).toBeNull();
    expect(reply.body.data.length).toBeGreaterThan(0);
  });

  it('validates q, limit and cursor', async () => {
    const cases = [
      ['/v1/keywords/search', 'q'],
      ['/v1/keywords/search?q=', 'q'],
      [`/v1/keywords/search?q=${'a'.repeat(201)}`, 'q'],
      ['/v1/keywords/search?q=a&limit=0', 'limit'],
      ['/v1/keywords/search?q=a&limit=101', 'limit'],
      ['/v1/keywords/search?q=a&limit=ten', 'limit'],
      ['/v1/keywords/search?q=a&cursor=garbage', 'cursor'],
    ] as const;
    for (const [path, name] of cases) {
      const reply = await t.get<ErrorBody>(path);
      expect(reply.status, path).toBe(400);
      expect(reply.body.error.message, path).toContain(name);
    }
    const page = await t.get<Page<SearchResult>>('/v1/keywords/search?q=mystery&limit=5');
    const foreign = await t.get<ErrorBody>(`/v1/keywords/search?q=romance&cursor=${page.body.next_cursor}`);
    expect(foreign.status).toBe(400);
    expect((await t.get(`/v1/keywords/search?q=${'a'.repeat(200)}`)).status).toBe(200);
  });
});

describe('GET /v1/rankings', () => {
  it('answers hourly series for the last 24 hours by default, paginated over series', async () => {
    const { items, pages } = await t.all<Series>('/v1/rankings?limit=7');
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(items.length).toBeGreaterThan(7);
    const keys = items.map((s) => `${s.asin}|${s.keyword}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const series of items) {
      expect(world.books.some((b) => b.asin === series.asin)).toBe(true);
      expect(series.marketplace).toBe('US');
      expect(series.points).toHaveLength(24);
      expect(series.points[0]!.at).toBe('2026-11-20T15:00:00Z');
      expect(series.points.at(-1)!.at).toBe('2026-11-21T14:00:00Z');
    }
  });

  it('filters by repeatable asin and keyword and a from/to window', async () => {
    const [a, b] = world.books;
    const keyword = a!.keywords[3]!;
    const path =
      `/v1/rankings?asin=${a!.asin}&asin=${b!.asin}&keyword=${encodeURIComponent(keyword)}` +
      '&from=2026-11-21T10:30:00Z&to=2026-11-21T13:00:00Z';
    const reply = await t.get<Page<Series>>(path);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((s) => s.asin)).toContain(a!.asin);
    for (const series of reply.body.data) expect(series.keyword).toBe(keyword);
    expect(reply.body.data[0]!.points.map((p) => p.at)).toEqual([
      '2026-11-21T11:00:00Z',
      '2026-11-21T12:00:00Z',
      '2026-11-21T13:00:00Z',
    ]);
  });

  it('answers 404 for an ASIN outside the account and 400 for bad timestamps', async () => {
    const book = (await t.get<BookBody>(`/v1/books/${asin}`)).body;
    const outside = await t.get<ErrorBody>(`/v1/rankings?asin=${book.comp_titles[0]!.asin}`);
    expect(outside.status).toBe(404);
    expect(outside.body.error.code).toBe('not_found');
    for (const path of [
      '/v1/rankings?from=yesterday',
      '/v1/rankings?from=2026-11-21',
      '/v1/rankings?to=2026-11-21T25:00:00Z',
      '/v1/rankings?from=2026-11-21T10:00:00Z&to=2026-11-20T10:00:00Z',
      '/v1/rankings?asin=short',
    ]) {
      expect((await t.get<ErrorBody>(path)).status, path).toBe(400);
    }
  });
});

describe('GET /v1/arc/reviews', () => {
  it('lists reviews newest first, pages with a cursor, filters by campaign, platform and since', async () => {
    const { items, pages } = await t.all<ReviewBody>('/v1/arc/reviews?limit=3');
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(items.map((r) => r.review_id)).size).toBe(items.length);
    expect(items.every((r, i) => i === 0 || r.published_at <= items[i - 1]!.published_at)).toBe(true);
    for (const review of items) {
      expect(['amazon', 'audible', 'goodreads']).toContain(review.platform);
      expect(review.rating).toBeGreaterThanOrEqual(1);
      expect(review.rating).toBeLessThanOrEqual(5);
      expect(review.published_at).toMatch(TIMESTAMP_RE);
      expect(Date.parse(review.published_at)).toBeLessThanOrEqual(Date.parse('2026-11-21T14:00:10Z'));
    }
    const campaign = world.campaigns[0]!;
    const filtered = await t.all<ReviewBody>(
      `/v1/arc/reviews?campaign_id=${campaign.campaign_id}&platform=amazon`,
    );
    expect(
      filtered.items.every((r) => r.campaign_id === campaign.campaign_id && r.platform === 'amazon'),
    ).toBe(true);
    const since = items[2]!.published_at;
    const recent = await t.all<ReviewBody>(`/v1/arc/reviews?since=${since}`);
    expect(recent.items.every((r) => r.published_at >= since)).toBe(true);
    expect(recent.items.length).toBeGreaterThanOrEqual(3);
  });

  it('validates its filters', async () => {
    expect((await t.get('/v1/arc/reviews?platform=kobo')).status).toBe(400);
    expect((await t.get('/v1/arc/reviews?since=2026-13-01T00:00:00Z')).status).toBe(400);
    expect((await t.get('/v1/arc/reviews?campaign_id=arc_nope')).status).toBe(404);
  });
});

describe('GET /v1/sales', () => {
  it('answers daily rows with the marketplace currency and decimal-string money', async () => {
    const reply = await t.get<Page<SalesBody>>(`/v1/sales?asin=${asin}&from=2026-11-01&to=2026-11-21`);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((row) => row.date)).toEqual(
      Array.from({ length: 21 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`),
    );
    for (const row of reply.body.data) {
      expect(row).toMatchObject({ asin, marketplace: 'US' });
      expect(row.royalties.currency).toBe('USD');
      expect(row.royalties.amount).toMatch(/^\d+\.\d{2}$/);
      expect(row.ad_spend.amount).toMatch(/^\d+\.\d{2}$/);
      expect(Number.isInteger(row.units) && row.units >= 0).toBe(true);
    }
  });

  it('uses each marketplace currency', async () => {
    const book = world.books.find((b) => b.marketplaces.some((m) => m !== 'US'))!;
    const market = book.marketplaces.find((m) => m !== 'US')!;
    const reply = await t.get<Page<SalesBody>>(
      `/v1/sales?asin=${book.asin}&marketplace=${market}&from=2026-11-20&to=2026-11-20`,
    );
    const expected: Record<string, string> = {
      UK: 'GBP',
      DE: 'EUR',
      FR: 'EUR',
      ES: 'EUR',
      IT: 'EUR',
      NL: 'EUR',
      JP: 'JPY',
      IN: 'INR',
      CA: 'CAD',
      BR: 'BRL',
      MX: 'MXN',
      AU: 'AUD',
    };
    expect(reply.body.data[0]!.royalties.currency).toBe(expected[market]);
  });

  it('pages across all account books and keeps the window of the first page', async () => {
    const { items, pages } = await t.all<SalesBody>('/v1/sales?limit=40');
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(items).toHaveLength(14 * 12);
    expect(items[0]!.date).toBe('2026-11-08');
    expect(items.at(-1)!.date).toBe('2026-11-21');
  });

  it('refuses ranges over 93 days, reversed ranges and bad dates', async () => {
    for (const path of [
      '/v1/sales?from=2026-08-01&to=2026-11-21',
      '/v1/sales?from=2026-11-21&to=2026-11-01',
      '/v1/sales?from=2026-02-30',
      '/v1/sales?to=21.11.2026',
      '/v1/sales?limit=500',
      '/v1/sales?asin=B0!!!!!!!!',
    ]) {
      expect((await t.get<ErrorBody>(path)).status, path).toBe(400);
    }
    expect((await t.get('/v1/sales?from=2026-08-20&to=2026-11-21')).status).toBe(200);
  });
});
