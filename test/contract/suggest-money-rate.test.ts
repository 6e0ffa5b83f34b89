/**
 * What probe's suggestion makes of money with no currency member, "no figure" sentinels and a rate
 * limit's window (src/tools/probe/suggest-money.ts, suggest-rate.ts), on answers written by hand: the
 * cases the simulator's dialects do not serve (a null money object, -2, refunds, a fixed currency, the
 * draft's other windows and its one-header form). Every suggestion is checked by `validate`'s parser.
 */
import { describe, expect, it } from 'vitest';
import { defaultContract, parseContract } from '../../src/api/index.ts';
import { type RecordedAnswer, suggestContract } from '../../src/tools/probe/index.ts';

const row = (over: Record<string, unknown>) => ({
  asin: 'B000000001',
  marketplace: 'US',
  date: '2026-11-19',
  units: 3,
  royalties: { amount: '4.10', currency: 'USD' },
  ad_spend: { amount: '1.00', currency: 'USD' },
  ...over,
});

const sales = (rows: unknown[], extra: Partial<RecordedAnswer> = {}, body: object = {}): RecordedAnswer => ({
  endpoint: 'sales',
  method: 'GET',
  path: '/v1/sales?marketplace=US',
  status: 200,
  headers: {},
  body: { data: rows, next_cursor: null, ...body },
  ...extra,
});

function suggest(answers: RecordedAnswer[]) {
  const out = suggestContract(defaultContract(), answers);
  const load = parseContract(out.contract, 'suggested.yaml');
  expect(load.ok ? [] : load.problems).toEqual([]);
  const fields = (out.contract.endpoints?.sales?.fields ?? {}) as Record<string, unknown>;
  return { ...out, fields, load };
}

describe('money with no currency member', () => {
  it("whole numbers beside a marketplace: minor units of the row's marketplace's currency, said", () => {
    const rows = [
      row({ marketplace: 'US', royalties: 2819, ad_spend: 0 }),
      row({ marketplace: 'JP', royalties: 310, ad_spend: 45 }),
    ];
    const { fields, undecided, load } = suggest([sales(rows)]);
    expect(fields.royalties).toEqual({
      path: 'royalties',
      format: 'minor_units',
      currency: { fromMarketplace: true },
    });
    expect(undecided.some((l) => l.includes('all whole numbers (e.g. 2819): read as minor units'))).toBe(
      true,
    );
    if (!load.ok) return;
    const read = load.contract.sales({ data: rows, next_cursor: null });
    expect(read.ok && read.data.map((r) => r.royalties)).toEqual([
      { amount: '28.19', currency: 'USD' },
      { amount: '310', currency: 'JPY' },
    ]);
  });

  it('amounts with fractions are a major number; a name that says cents is minor units', () => {
    const major = suggest([sales([row({ royalties: 28.19, ad_spend: 0.5 })])]).fields;
    expect(major.royalties).toMatchObject({ path: 'royalties', format: 'major_number' });
    const cents = suggest([sales([row({ royalties: undefined, royaltyCents: 2819 })])]).fields;
    expect(cents.royalties).toMatchObject({ path: 'royaltyCents', format: 'minor_units' });
  });

  it('no marketplace in the rows: a currency the answer states once, else the one of the marketplace asked', () => {
    const rows = [{ asin: 'B000000001', date: '2026-11-19', units: 1, royalties: 120, ad_spend: 0 }];
    const stated = suggest([sales(rows, {}, { meta: { currency: 'EUR' } })]);
    expect(stated.fields.royalties).toMatchObject({ currency: { fixed: 'EUR' } });
    expect(stated.undecided.some((l) => l.includes('the answer says "EUR" at "meta.currency"'))).toBe(true);
    const asked = suggest([sales(rows, { params: [{ param: 'marketplace', name: 'marketplace' }] })]);
    expect(asked.fields.royalties).toMatchObject({ currency: { fixed: 'USD' } });
    expect(asked.undecided.some((l) => l.includes('assumed USD, the currency of US'))).toBe(true);
    // Nothing says a currency: no fixed code is made up.
    const none = suggest([sales(rows)]);
    expect(JSON.stringify(none.fields.royalties)).not.toContain('fixed');
    expect(none.undecided.some((l) => l.includes('nothing says the currency'))).toBe(true);
  });
});

describe('"no figure" among money', () => {
  it('-1 and -2 are offered with how many rows said each; other negatives stay amounts (refunds)', () => {
    const rows = [
      row({ royalties: 2819, ad_spend: 0 }),
      row({ royalties: -1, ad_spend: -2 }),
      row({ royalties: -345, ad_spend: -1 }),
      row({ royalties: -1, ad_spend: 15 }),
    ];
    const { fields, undecided } = suggest([sales(rows)]);
    expect(fields.royalties).toMatchObject({ noFigure: [-1] });
    expect(fields.adSpend).toMatchObject({ noFigure: [-1, -2] });
    const note = undecided.find((l) => l.startsWith('sales.royalties: 2 of 4 rows with -1'));
    expect(note).toContain('other negative amounts (-345) are read as amounts (refunds)');
    expect(
      undecided.some((l) => l.startsWith('sales.adSpend: 1 of 4 rows with -1, 1 of 4 rows with -2')),
    ).toBe(true);
  });

  it('a null money object (royalties: null) beside money objects: noFigure [null], the rest as it was', () => {
    const rows = [row({}), row({ royalties: null }), row({ royalties: { amount: null, currency: 'USD' } })];
    const { fields, undecided, load } = suggest([sales(rows)]);
    expect(fields.royalties).toMatchObject({ path: 'royalties', noFigure: [null] });
    expect(fields.adSpend).not.toHaveProperty('noFigure');
    expect(undecided.some((l) => l.startsWith('sales.royalties: 2 of 3 rows with null'))).toBe(true);
    if (!load.ok) return;
    const read = load.contract.sales({ data: rows, next_cursor: null });
    expect(read.ok && read.data.map((r) => r.royalties)).toEqual([
      { amount: '4.10', currency: 'USD' },
      null,
      null,
    ]);
  });

  it('every row without a figure: noFigure offered, and the scale said to be unseen', () => {
    const rows = [row({ royalties: -1, ad_spend: -1 }), row({ royalties: -1, ad_spend: -1 })];
    const { fields, undecided } = suggest([sales(rows)]);
    expect(fields.royalties).toMatchObject({ path: 'royalties', format: 'major_number', noFigure: [-1] });
    expect(undecided.some((l) => l.startsWith('sales.royalties: no amount in the answers'))).toBe(true);
  });

  it('nothing offered where every amount is one', () => {
    const { fields } = suggest([sales([row({}), row({ royalties: { amount: '-3.20', currency: 'USD' } })])]);
    expect(fields.royalties).toBeUndefined();
  });
});

const withHeaders = (headers: Record<string, string>, body: object = {}): RecordedAnswer => ({
  ...sales([row({})], { headers }, body),
});

describe("a rate limit's window", () => {
  it('the IETF draft: RateLimit-Policy w=1 is a second, w=60 a minute, another window is left out', () => {
    const second = suggest([withHeaders({ 'ratelimit-limit': '10', 'ratelimit-policy': '10;w=1' })]);
    expect(second.contract.rateLimit).toMatchObject({
      per: 'second',
      limit: 'ratelimit-limit',
      remaining: null,
    });
    const minute = suggest([
      withHeaders({ 'ratelimit-limit': '100', 'ratelimit-policy': '"default";q=100;w=60' }),
    ]);
    expect(minute.contract.rateLimit?.per).toBeUndefined();
    expect(minute.contract.rateLimit?.limit).toBe('ratelimit-limit');
    const ten = suggest([withHeaders({ 'ratelimit-limit': '100', 'ratelimit-policy': '100;w=10' })]);
    expect(ten.contract.rateLimit).toMatchObject({ limit: null });
    expect(
      ten.undecided.some((l) => l.includes('a window of 10 s: a contract counts a minute or a second')),
    ).toBe(true);
  });

  it("a second's limit leaves out the contract's remaining even where the answers carry it (validate refuses both)", () => {
    const { contract } = suggest([
      withHeaders({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'ratelimit-policy': '10;w=1' }),
    ]);
    expect(contract.rateLimit).toMatchObject({ per: 'second', remaining: null });
  });

  it("the draft's one header (RateLimit: limit=10, …) is said, not read as a number", () => {
    const { contract, undecided } = suggest([
      withHeaders({ ratelimit: 'limit=10, remaining=9, reset=1', 'ratelimit-policy': '10;w=1' }),
    ]);
    expect(contract.rateLimit?.per).toBeUndefined();
    expect(undecided.some((l) => l.includes("is the IETF draft's one header") && l.includes('10;w=1'))).toBe(
      true,
    );
  });

  it("SP-API's x-amzn-RateLimit-Limit is a second by its name, whole or not", () => {
    const { contract, undecided } = suggest([withHeaders({ 'x-amzn-ratelimit-limit': '1' })]);
    expect(contract.rateLimit).toMatchObject({
      per: 'second',
      limit: 'x-amzn-ratelimit-limit',
      remaining: null,
    });
    expect(undecided.some((l) => l.includes('(per: second, 60 a minute)'))).toBe(true);
  });

  it('a whole number with nothing beside it stays a minute, and says so', () => {
    const { contract, undecided } = suggest([withHeaders({ 'x-ratelimit-limit': '10' })]);
    expect(contract.rateLimit?.per).toBeUndefined();
    expect(
      undecided.some((l) => l.includes('nothing in the answers says its window: read as requests a minute')),
    ).toBe(true);
  });

  it('a limit in every body with its window beside it: the body path, per second or a minute', () => {
    const body = (limit: number, period: unknown) => ({ meta: { rateLimit: { limit, period } } });
    const second = suggest([withHeaders({}, body(10, 'second')), withHeaders({}, body(10, 'second'))]);
    expect(second.contract.rateLimit).toMatchObject({
      per: 'second',
      limit: { body: 'meta.rateLimit.limit' },
      remaining: null,
    });
    const windowSeconds = suggest([
      withHeaders({}, { meta: { rateLimit: { limit: 10, windowSeconds: 1 } } }),
    ]);
    expect(windowSeconds.contract.rateLimit).toMatchObject({ per: 'second' });
    const text = suggest([withHeaders({}, { meta: { rateLimit: { limit: 10, window: '1s' } } })]);
    expect(text.contract.rateLimit).toMatchObject({ per: 'second' });
    // A member that names no time is no evidence: a minute, said.
    const unit = suggest([withHeaders({}, { meta: { rateLimit: { limit: 10, unit: 'requests' } } })]);
    expect(unit.contract.rateLimit?.per).toBeUndefined();
    expect(unit.contract.rateLimit?.limit).toEqual({ body: 'meta.rateLimit.limit' });
    expect(unit.undecided.some((l) => l.includes('"requests" at "meta.rateLimit.unit" is no time'))).toBe(
      true,
    );
    const minute = suggest([withHeaders({}, body(600, 'minute'))]);
    expect(minute.contract.rateLimit?.per).toBeUndefined();
    expect(minute.contract.rateLimit?.limit).toEqual({ body: 'meta.rateLimit.limit' });
  });
});
