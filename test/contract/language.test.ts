/**
 * Issue 26's additions to the contract language, each read and written by the compiled contract:
 * per-endpoint query parameters, list layouts, scales, epochs, numeric enums, a sales day's state,
 * signals in the body, keyword pages merged before the limit; and the bad input validate refuses.
 */
import { describe, expect, it } from 'vitest';
import { type CompiledContract, parseContract, SchemaMismatchError } from '../../src/api/index.ts';
import { mergeKeywordPages } from '../../src/api/keyword-pages.ts';
import type { BookKeyword } from '../../src/api/schemas.ts';
import type { Page } from '../../src/api/types.ts';

function compiled(raw: unknown): CompiledContract {
  const load = parseContract(raw, 'dialect.yaml');
  if (!load.ok) throw new Error(JSON.stringify(load.problems));
  return load.contract;
}

function problems(raw: unknown) {
  const load = parseContract(raw, 'dialect.yaml');
  if (load.ok) throw new Error('expected the contract to be refused');
  return load.problems;
}

describe('query parameters per endpoint', () => {
  const contract = compiled({
    params: { marketplace: 'market' },
    endpoints: {
      rankings: {
        params: {
          asin: { name: 'asins', list: 'comma' },
          from: { format: 'epoch_min', epoch: '2011-01-01' },
          to: { format: 'epoch_s' },
        },
      },
      sales: {
        params: { from: { name: 'startDate', format: 'rfc3339' } },
        fixedParams: { granularity: 'day' },
      },
    },
  });

  it('names, formats, comma-joined lists and fixed extras', () => {
    expect(
      contract.queries.rankings.build({
        asin: ['B000000001', 'B000000002'],
        from: '2011-01-02T00:00:00Z',
        to: '2026-11-20T00:00:00Z',
        marketplace: 'US',
      }),
    ).toEqual([
      ['market', 'US'],
      ['from', '1440'],
      ['to', String(Date.parse('2026-11-20T00:00:00Z') / 1000)],
      ['asins', 'B000000001,B000000002'],
    ]);
    expect(contract.queries.sales.build({ from: '2026-11-01', to: '2026-11-20' })).toEqual([
      ['startDate', '2026-11-01T00:00:00Z'],
      ['to', '2026-11-20'],
      ['granularity', 'day'],
    ]);
    // The simulator reads them back.
    expect(contract.queries.rankings.incoming.get('from')?.read('1440')).toBe('2011-01-02T00:00:00Z');
    // A value that is not a count goes on as sent (the simulator answers 400 to it, as the API would).
    expect(contract.queries.rankings.incoming.get('from')?.read('2026-11-20T00:00:00Z')).toBe(
      '2026-11-20T00:00:00Z',
    );
  });
});

describe('shapes', () => {
  const contract = compiled({
    enums: { marketplace: { '1': 'US' }, salesStatus: { P: 'provisional', F: 'final' } },
    endpoints: {
      book: {
        fields: {
          marketplace: 'domain',
          observedAt: { path: 'seen', format: 'epoch_min', epoch: '2011-01-01' },
          bsrHistory: {
            path: 'history',
            layout: 'flat',
            items: { at: { path: '0', format: 'epoch_s' }, rank: { path: '1', unranked: [-1] } },
          },
          rating: { path: 'rating', scale: 10, unranked: ['missing'] },
        },
      },
      rankings: {
        fields: {
          points: {
            path: 'csv',
            layout: 'keyed',
            items: { at: { path: '0', format: 'epoch_s' }, rank: { path: '1', unranked: [-1] } },
          },
        },
      },
      sales: { fields: { final: { path: 'status', format: 'enum' } } },
    },
  });

  it('flat and keyed histories, minutes since a day, x10 ratings and numeric enums read and write', () => {
    const book = contract.nodes.book;
    const written = book.write({
      asin: 'B000000001',
      marketplace: 'US',
      title: 't',
      author: 'a',
      bsr: {
        rank: 5,
        category: 'c',
        observed_at: '2011-01-02T00:00:00Z',
        history: [
          { at: '2026-11-20T00:00:00Z', rank: 7 },
          { at: '2026-11-20T01:00:00Z', rank: null },
        ],
      },
      organic_keywords: [],
      comp_titles: [],
      review_sentiment: { average_rating: 4.4, review_count: 2, positive: 1, neutral: 0, negative: 0 },
    });
    expect(written).toMatchObject({
      domain: 1,
      seen: 1440,
      rating: 44,
      history: [1795132800, 7, 1795136400, -1],
    });
    const read = contract.book(written);
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    expect(read.data.marketplace).toBe('US');
    expect(read.data.bsr.observed_at).toBe('2011-01-02T00:00:00Z');
    expect(read.data.bsr.history).toEqual([
      { at: '2026-11-20T00:00:00Z', rank: 7 },
      { at: '2026-11-20T01:00:00Z', rank: null },
    ]);
    expect(read.data.review_sentiment.average_rating).toBe(4.4);
    const series = contract.rankings({
      data: [
        { asin: 'B000000001', keyword: 'k', marketplace: 'US', csv: { '1795132800': 3, '1795136400': -1 } },
      ],
    });
    if (!series.ok) throw new Error(JSON.stringify(series.issues));
    expect(series.data[0]?.points).toEqual([
      { at: '2026-11-20T00:00:00Z', rank: 3 },
      { at: '2026-11-20T01:00:00Z', rank: null },
    ]);
  });

  it("a sales day's state from an enum", () => {
    const row = {
      asin: 'B000000001',
      marketplace: 'US',
      date: '2026-11-20',
      units: 1,
      royalties: { amount: '1.00', currency: 'USD' },
      ad_spend: { amount: '0.00', currency: 'USD' },
    };
    const rows = contract.sales({
      data: [
        { ...row, status: 'P' },
        { ...row, status: 'F' },
      ],
    });
    if (!rows.ok) throw new Error(JSON.stringify(rows.issues));
    expect(rows.data.map((r) => r.final)).toEqual([false, true]);
    expect(contract.sales({ data: [{ ...row, status: 'X' }] }).ok).toBe(false);
  });
});

describe('signals from headers or the body', () => {
  it('quota used in a header; quota, reset and request id in the body', () => {
    const used = compiled({ rateLimit: { quotaUsed: 'X-Quota-Used', quotaRemaining: null } });
    expect(used.rateLimit({ 'x-quota-limit': '1000', 'x-quota-used': '250' }, 0)).toEqual({
      quotaLimit: 1000,
      quotaRemaining: 750,
    });
    const body = compiled({
      rateLimit: {
        quotaLimit: { body: 'meta.quota.limit' },
        quotaRemaining: { body: 'meta.quota.remaining' },
        quotaReset: { body: 'meta.quota.resets_at', format: 'rfc3339' },
      },
      requestIdBody: 'meta.requestId',
    });
    expect(body.signalsInBody).toBe(true);
    const meta = {
      meta: { quota: { limit: 10, remaining: 4, resets_at: '2026-12-01T00:00:00Z' }, requestId: 'r1' },
    };
    expect(body.rateLimit({}, 0, meta)).toMatchObject({
      quotaLimit: 10,
      quotaRemaining: 4,
      quotaResetAt: Date.parse('2026-12-01T00:00:00Z'),
    });
    expect(body.requestId({}, meta)).toBe('r1');
    expect(body.requestId({ 'x-request-id': 'h1' }, meta)).toBe('h1');
  });

  it('error details from either of two places', () => {
    const contract = compiled({
      endpoints: {
        error: {
          fields: {
            details: {
              path: 'invalid_params',
              alsoAt: ['errors'],
              items: {
                path: { path: 'name', alsoAt: ['pointer'] },
                message: { path: 'reason', alsoAt: ['detail'] },
              },
            },
          },
        },
      },
    });
    const of400 = contract.errorBody({
      error: { code: 'x', message: 'm', invalid_params: [{ name: 'from', reason: 'bad' }] },
    });
    const of422 = contract.errorBody({
      error: { code: 'x', message: 'm', errors: [{ pointer: '/readers', detail: 'empty' }] },
    });
    expect(of400?.details).toEqual([{ path: 'from', message: 'bad' }]);
    expect(of422?.details).toEqual([{ path: '/readers', message: 'empty' }]);
  });
});

describe('book keywords in pages', () => {
  const keyword = (i: number): BookKeyword => ({
    keyword: `k${i}`,
    rank: 1,
    search_volume: 1,
    traffic_share: 0,
  });
  async function* pages(sizes: number[]): AsyncGenerator<Page<BookKeyword>> {
    let n = 0;
    for (const [index, size] of sizes.entries()) {
      const items = Array.from({ length: size }, () => keyword(n++));
      yield { items, nextCursor: null, meta: { status: 200, rateLimit: {}, attempts: 1, page: index } };
    }
  }
  const reader = { reader: () => ({ ok: true as const, data: [] }), asin: () => 'B000000001' };

  it('merges the pages and counts every request', async () => {
    const merged = await mergeKeywordPages('GET /v1/books/{asin}/keywords', pages([2, 2, 1]), reader);
    expect(merged.data.data.map((k) => k.keyword)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(merged.meta.attempts).toBe(3);
  });

  it('holds the merged list to the limit of 1,000', async () => {
    await expect(
      mergeKeywordPages('GET /v1/books/{asin}/keywords', pages([600, 600]), reader),
    ).rejects.toBeInstanceOf(SchemaMismatchError);
  });
});

describe('bad input is a validate error with the place and the fix', () => {
  it('a style on an endpoint that cannot have one', () => {
    expect(problems({ endpoints: { book: { pagination: { page: { param: 'p' } } } } })).toEqual([
      expect.objectContaining({
        path: 'endpoints.book.pagination',
        hint: expect.stringContaining('remove pagination'),
      }),
    ]);
  });

  it('two styles at once on book keywords', () => {
    const found = problems({
      endpoints: { bookKeywords: { pagination: { page: { param: 'p' }, offset: { param: 'o' } } } },
    });
    expect(found[0]).toMatchObject({
      path: 'endpoints.bookKeywords.pagination',
      message: expect.stringContaining('two pagination styles'),
    });
  });

  it('a parameter format we do not know', () => {
    const found = problems({ endpoints: { sales: { params: { from: { format: 'epoch_sec' } } } } });
    expect(found[0]?.path).toBe('endpoints.sales.params.from.format');
    expect(found[0]?.message).toContain('epoch_ms');
  });

  it('a request body path that collides, and a request where no body is sent', () => {
    const found = problems({
      endpoints: {
        invites: { request: { fields: { campaignId: 'campaign', message: 'campaign.note' } } },
        book: { request: { fields: {} } },
      },
    });
    expect(found.map((p) => p.path)).toEqual([
      'endpoints.invites.request.fields.message.path',
      'endpoints.book.request',
    ]);
  });

  it('an epoch without an epoch format, a scale on text, a layout on a single value', () => {
    const found = problems({
      endpoints: {
        book: {
          fields: {
            observedAt: { path: 't', epoch: '2011-01-01' },
            title: { path: 'n', scale: 10 },
            author: { path: 'a', layout: 'flat' },
          },
        },
      },
    });
    expect(found.map((p) => p.path)).toEqual([
      'endpoints.book.fields.observedAt.epoch',
      'endpoints.book.fields.title.scale',
      'endpoints.book.fields.author.layout',
    ]);
  });

  it('a sales state enum with no values', () => {
    expect(
      problems({ endpoints: { sales: { fields: { final: { path: 's', format: 'enum' } } } } })[0]?.path,
    ).toBe('endpoints.sales.fields.final.format');
  });
});
