/** Normal answers of all seven endpoints, parsed into types, and pagination across several pages. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  collectAll,
  InvalidRequestError,
  MARKETPLACES,
  type OutboundRequest,
  type Page,
  type ResponseInfo,
} from '../../src/api/index.ts';
import { API_SIM, clientFor, KEYS, rejection } from '../helpers/api-client.ts';
import { useSimulator } from '../helpers/sim.ts';

const fx = useSimulator(API_SIM);
let client: AnalyticsClient;
const outbound: OutboundRequest[] = [];
const responses: ResponseInfo[] = [];

beforeAll(async () => {
  client = clientFor(fx.sim, KEYS.main, {
    beforeRequest: (req) => {
      outbound.push(req);
    },
    onResponse: (res) => {
      responses.push(res);
    },
  });
});

afterAll(async () => {
  await client?.close();
});

function firstBook() {
  return fx.book();
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Reads all pages, checking the cursor chain: every page but the last points onward. */
async function walk<T>(pages: AsyncIterable<Page<T>>): Promise<{ items: T[]; pages: Page<T>[] }> {
  const seen: Page<T>[] = [];
  for await (const page of pages) seen.push(page);
  seen.forEach((page, i) => {
    expect(page.meta.page).toBe(i);
    expect(page.nextCursor === null).toBe(i === seen.length - 1);
  });
  return { items: seen.flatMap((p) => p.items), pages: seen };
}

describe('GET /v1/books/{asin}', () => {
  it('parses a book with its BSR, history, keywords, comps and sentiment', async () => {
    const book = firstBook();
    const before = outbound.length;
    const res = await client.getBook(book.asin, { marketplace: 'US' });
    expect(res.data.asin).toBe(book.asin);
    expect(res.data.marketplace).toBe('US');
    expect(res.data.title).toBe(book.title);
    expect(res.data.bsr.rank === null || res.data.bsr.rank > 0).toBe(true);
    expect(Date.parse(res.data.bsr.observed_at)).toBeGreaterThan(0);
    const history = res.data.bsr.history.map((p) => Date.parse(p.at));
    expect(history).toEqual([...history].sort((a, b) => a - b));
    expect(res.data.review_sentiment.positive).toBeLessThanOrEqual(1);
    expect(res.meta).toMatchObject({ status: 200, attempts: 1 });
    expect(res.meta.rateLimit.limit).toBeGreaterThan(0);
    expect(res.meta.rateLimit.quotaRemaining).toBeGreaterThan(0);
    expect(outbound.slice(before)).toEqual([
      {
        method: 'GET',
        endpoint: 'GET /v1/books/{asin}',
        path: `/v1/books/${book.asin}?marketplace=US`,
        attempt: 1,
        page: 0,
      },
    ]);
    const info = responses.at(-1);
    expect(info).toMatchObject({ endpoint: 'GET /v1/books/{asin}', status: 200, attempt: 1 });
    expect(info?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('refuses a malformed ASIN before spending a request', async () => {
    const before = outbound.length;
    const seq = await fx.control.lastSeq();
    const error = await rejection(client.getBook('b0-not-an-asin'));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: 'invalid_request', status: undefined, retryable: false });
    expect(outbound.length).toBe(before);
    expect(await fx.control.requestsSince(seq)).toEqual([]);
  });
});

describe('GET /v1/books/{asin}/keywords', () => {
  it('parses the keyword list, ordered by traffic share', async () => {
    const book = firstBook();
    const res = await client.getBookKeywords(book.asin);
    expect(res.data.asin).toBe(book.asin);
    expect(res.data.data.length).toBeGreaterThan(0);
    const shares = res.data.data.map((k) => k.traffic_share);
    expect(shares).toEqual([...shares].sort((a, b) => b - a));
    for (const k of res.data.data) expect(k.rank === null || Number.isInteger(k.rank)).toBe(true);
  });
});

describe('GET /v1/keywords/search', () => {
  it('pages through results with a small limit, one request per page', async () => {
    const q = firstBook().keywords[0]?.split(' ')[0] ?? 'mystery';
    const all = await collectAll(client.searchKeywords({ q, limit: 100 }));
    expect(all.items.length).toBeGreaterThan(2);

    const before = outbound.length;
    const { items, pages } = await walk(client.searchKeywords({ q, limit: 2 }));
    expect(pages.length).toBe(Math.ceil(all.items.length / 2));
    expect(items).toEqual(all.items);
    for (const item of items) {
      expect(item.competition).toBeGreaterThanOrEqual(0);
      expect(item.intent_score).toBeLessThanOrEqual(1);
    }
    const sent = outbound.slice(before);
    expect(sent.map((r) => r.page)).toEqual(pages.map((_, i) => i));
    expect(sent[0]?.path).not.toContain('cursor=');
    expect(sent[1]?.path).toContain(`cursor=${encodeURIComponent(pages[0]?.nextCursor ?? '')}`);
  });

  it('resumes from a cursor and stops at maxPages, saying the list is truncated', async () => {
    const q = firstBook().keywords[0]?.split(' ')[0] ?? 'mystery';
    const first = await collectAll(client.searchKeywords({ q, limit: 2 }), { maxPages: 1 });
    expect(first).toMatchObject({ pages: 1, requests: 1, truncated: true });
    expect(first.nextCursor).not.toBeNull();
    const rest = await collectAll(client.searchKeywords({ q, limit: 2, cursor: first.nextCursor ?? '' }));
    const all = await collectAll(client.searchKeywords({ q, limit: 100 }));
    expect([...first.items, ...rest.items]).toEqual(all.items);
  });
});

describe('GET /v1/rankings', () => {
  it('parses ranking series for an ASIN across several pages', async () => {
    const book = firstBook();
    const { items, pages } = await walk(client.getRankings({ asin: [book.asin], limit: 1 }));
    expect(pages.length).toBeGreaterThan(1);
    for (const series of items) {
      expect(series.asin).toBe(book.asin);
      expect(MARKETPLACES).toContain(series.marketplace);
      const times = series.points.map((p) => Date.parse(p.at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
  });

  it('sends repeated asin and keyword filters', async () => {
    const book = firstBook();
    const keyword = book.keywords[0] ?? '';
    const before = outbound.length;
    const all = await collectAll(client.getRankings({ asin: [book.asin], keyword: [keyword] }));
    expect(all.items.every((s) => s.keyword === keyword)).toBe(true);
    expect(outbound[before]?.path).toContain(`keyword=${encodeURIComponent(keyword).replaceAll('%20', '+')}`);
  });

  it('refuses a malformed ASIN filter before spending a request', async () => {
    const before = outbound.length;
    const error = await rejection(collectAll(client.getRankings({ asin: ['short'] })));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(outbound.length).toBe(before);
  });
});

describe('POST /v1/arc/invites', () => {
  it('invites readers, sends the Idempotency-Key and answers the first result on a repeat', async () => {
    const campaign = fx.campaign();
    const body = {
      campaign_id: campaign.campaign_id,
      readers: [
        { email: 'ada@example.com', name: 'Ada' },
        { email: 'grace@example.com', name: 'Grace' },
      ],
      message: 'Early copy for you',
    };
    const first = await client.inviteArcReaders(body, { idempotencyKey: 'invite-test-1' });
    expect(first.meta.status).toBe(201);
    expect(first.data.campaign_id).toBe(campaign.campaign_id);
    expect(first.data.data.map((i) => [i.email, i.status])).toEqual([
      ['ada@example.com', 'invited'],
      ['grace@example.com', 'invited'],
    ]);
    const repeat = await client.inviteArcReaders(body, { idempotencyKey: 'invite-test-1' });
    expect(repeat.data).toEqual(first.data);
    const again = await client.inviteArcReaders(body, { idempotencyKey: 'invite-test-2' });
    expect(again.data.data.map((i) => i.status)).toEqual(['already_invited', 'already_invited']);
  });

  it('refuses to send without a usable idempotency key', async () => {
    const before = outbound.length;
    const error = await rejection(
      client.inviteArcReaders(
        { campaign_id: 'c', readers: [{ email: 'a@b.c', name: 'A' }] },
        { idempotencyKey: '' },
      ),
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(outbound.length).toBe(before);
  });
});

describe('GET /v1/arc/reviews', () => {
  it('parses reviews newest first across several pages', async () => {
    const campaign = fx.world.campaigns[0];
    const all = await collectAll(client.listArcReviews({ campaignId: campaign?.campaign_id, limit: 100 }));
    expect(all.items.length).toBeGreaterThan(2);
    const { items, pages } = await walk(
      client.listArcReviews({ campaignId: campaign?.campaign_id, limit: 2 }),
    );
    expect(pages.length).toBe(Math.ceil(all.items.length / 2));
    expect(items).toEqual(all.items);
    const times = items.map((r) => Date.parse(r.published_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const review of items) {
      expect(review.campaign_id).toBe(campaign?.campaign_id);
      expect(['amazon', 'audible', 'goodreads']).toContain(review.platform);
      expect(review.rating).toBeGreaterThanOrEqual(1);
      expect(review.rating).toBeLessThanOrEqual(5);
    }
  });
});

describe('GET /v1/sales', () => {
  it('parses daily sales with money as decimal strings across several pages', async () => {
    const book = firstBook();
    const now = fx.sim.clock.now();
    const params = { asin: book.asin, from: isoDay(now - 9 * 86_400_000), to: isoDay(now - 86_400_000) };
    const all = await collectAll(client.listSales({ ...params, limit: 100 }));
    expect(all.items.length).toBeGreaterThan(3);
    const { items, pages } = await walk(client.listSales({ ...params, limit: 3 }));
    expect(pages.length).toBe(Math.ceil(all.items.length / 3));
    expect(items).toEqual(all.items);
    for (const record of items) {
      expect(record.asin).toBe(book.asin);
      expect(record.date >= params.from && record.date <= params.to).toBe(true);
      expect(record.royalties?.amount).toMatch(/^-?\d+(\.\d+)?$/);
      expect(record.ad_spend?.currency).toMatch(/^[A-Z]{3}$/);
    }
  });
});
