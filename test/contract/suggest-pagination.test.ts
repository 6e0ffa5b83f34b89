/**
 * probe's pagination suggestion when lists page differently: the first list that shows a next page
 * sets the shared style, a later list that shows another style gets its own, and the result
 * compiles to each list's own walk.
 */
import { describe, expect, it } from 'vitest';
import { compileContract } from '../../src/api/contract/compile.ts';
import { mergeContract } from '../../src/api/contract/merge.ts';
import { defaultContract, parseContract } from '../../src/api/index.ts';
import type { RecordedAnswer } from '../../src/tools/probe/probe-analyse.ts';
import { suggestContract } from '../../src/tools/probe/suggest-contract.ts';

function answer(endpoint: RecordedAnswer['endpoint'], body: unknown, headers: Record<string, string> = {}) {
  return {
    endpoint,
    method: 'GET',
    path: `/v1/${endpoint}`,
    status: 200,
    headers,
    body,
  } satisfies RecordedAnswer;
}

const SALES_NEXT_URL = answer('sales', { data: [], links: { next: 'https://api.example/v1/sales?page=2' } });
const REVIEWS_CURSOR = answer('reviews', { data: [], next_cursor: 'c2', total: 3 });
const RANKINGS_ONE_PAGE = answer('rankings', { data: [], next_cursor: null });

describe('probe suggests pagination per list', () => {
  it('page numbers are recognised from the body (a page count), not only from headers', () => {
    const { contract: suggested, undecided } = suggestContract(defaultContract(), [
      answer('rankings', { data: [], meta: { page: 1, totalPages: 3 } }),
    ]);
    expect(suggested.pagination?.page).toEqual({
      param: 'page',
      firstPage: 1,
      totalPages: 'meta.totalPages',
    });
    expect(undecided.join('\n')).toContain('page numbers seen in the body');
  });

  it('a later list with another style than the first gets its own pagination', () => {
    const contract = defaultContract();
    const { contract: suggested, undecided } = suggestContract(contract, [
      SALES_NEXT_URL,
      REVIEWS_CURSOR,
      RANKINGS_ONE_PAGE,
    ]);

    expect(suggested.pagination).toEqual({ nextUrl: { next: 'links.next' } });
    expect(suggested.endpoints?.reviews?.pagination).toEqual({
      cursor: contract.source.pagination?.cursor,
    });
    expect(suggested.endpoints?.sales?.pagination).toBeUndefined();
    expect(undecided).toContain(
      "pagination of rankings: its answer showed no next page (one page, or page numbers or offsets that one answer cannot show); the style seen on sales is assumed: check it in the API document, and set this endpoint's own pagination if it differs",
    );

    const compiled = compileContract(mergeContract(contract.source, suggested));
    expect(compiled.pagination.sales.style).toBe('nextUrl');
    expect(compiled.pagination.reviews.style).toBe('cursor');
    expect(compiled.pagination.rankings.style).toBe('nextUrl');
    // The shared limit stays with the list that has its own style.
    expect(compiled.pagination.reviews.limitParam).toBe(compiled.pagination.sales.limitParam);
  });

  it('lists that page alike get one shared style and no list of its own', () => {
    const contract = defaultContract();
    const link = { link: '<https://api.example/v1/reviews?page=2>; rel="next"' };
    const { contract: suggested } = suggestContract(contract, [
      answer('reviews', { data: [] }, link),
      answer('sales', { data: [] }, link),
    ]);
    expect(suggested.pagination).toEqual({ linkHeader: {} });
    expect(suggested.endpoints?.sales?.pagination).toBeUndefined();
    expect(suggested.endpoints?.reviews?.pagination).toBeUndefined();
  });

  it('lists that page as the contract says keep its pagination and get none of their own', () => {
    const { contract: suggested } = suggestContract(defaultContract(), [
      REVIEWS_CURSOR,
      answer('sales', { data: [], next_cursor: 'c9' }),
    ]);
    // The suggestion is merged over the contract it checked: here the default's, so nothing is written.
    expect(suggested.pagination).toBeUndefined();
    expect(suggested.endpoints?.sales?.pagination).toBeUndefined();
    expect(suggested.endpoints?.reviews?.pagination).toBeUndefined();
  });
});

describe("probe's suggestion is merged over the user's contract", () => {
  it('keeps the parameters, request body, errors and signals answers cannot show', () => {
    const load = parseContract(
      {
        params: { campaign: 'campaignId' },
        errors: { codes: { LIMIT: 'rate_limited' } },
        rateLimit: { quotaUsed: 'X-Quota-Used' },
        endpoints: {
          sales: { params: { from: { name: 'startDate', format: 'date' } }, fixedParams: { view: 'day' } },
          invites: { request: { fields: { campaignId: 'campaignId' } } },
        },
      },
      'mine.yaml',
    );
    if (!load.ok) throw new Error(JSON.stringify(load.problems));
    const { contract: suggested } = suggestContract(load.contract, [answer('sales', { data: [] })]);
    expect(suggested.params).toEqual({ campaign: 'campaignId' });
    expect(suggested.errors?.codes).toEqual({ LIMIT: 'rate_limited' });
    expect(suggested.rateLimit).toMatchObject({ quotaUsed: 'X-Quota-Used' });
    expect(suggested.endpoints?.sales).toMatchObject({ fixedParams: { view: 'day' } });
    expect(suggested.endpoints?.invites?.request).toEqual({ fields: { campaignId: 'campaignId' } });
    // What the suggestion writes validates as it is.
    expect(parseContract(suggested, 'suggested.yaml').ok).toBe(true);
  });
});
