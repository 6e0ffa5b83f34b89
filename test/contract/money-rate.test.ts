/**
 * Issue 26 item 5, the last parts: money in minor units with no currency member (one fixed currency,
 * or the marketplace's own, as Keepa sends it), "no figure" sentinels in money (the day is left
 * out, never read as 0), and a rate limit stated per second (SP-API's 0.5 = a request every 2 s).
 */
import { describe, expect, it } from 'vitest';
import { type CompiledContract, parseContract } from '../../src/api/index.ts';
import type { SalesDay } from '../../src/model/observation.ts';
import { salesDaysOf, salesDaysOver } from '../../src/model/sales-day.ts';
import { headerSignals } from '../../src/tools/probe/serve-signals.ts';
import { ASIN, date, kinds, rule, run, sales } from '../rules/helpers.ts';

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

/** A Keepa-like flat sales row: numeric domains, integer cents of the marketplace's currency, -1 = none. */
const keepa = {
  enums: { marketplace: { '1': 'US', '3': 'DE', '5': 'JP', '2': 'UK' } },
  endpoints: {
    sales: {
      fields: {
        marketplace: 'domain',
        royalties: {
          path: 'royaltyCents',
          format: 'minor_units',
          currency: { fromMarketplace: true },
          noFigure: [-1, -2],
        },
        adSpend: { path: 'adCents', format: 'minor_units', currency: { fixed: 'USD' }, noFigure: [-1] },
      },
    },
  },
};
const row = { asin: 'B000000001', date: '2026-11-20', units: 3 };

describe('money with no currency member', () => {
  const contract = compiled(keepa);

  it("takes the currency of the row's marketplace, or the fixed one", () => {
    const read = contract.sales({
      data: [
        { ...row, domain: 1, royaltyCents: 1234, adCents: 250 },
        { ...row, domain: 3, royaltyCents: 99, adCents: 0 },
        { ...row, domain: 5, royaltyCents: 1234, adCents: 5 },
        { ...row, domain: 2, royaltyCents: 7, adCents: 5 },
      ],
    });
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    expect(read.data.map((r) => [r.marketplace, r.royalties, r.ad_spend])).toEqual([
      ['US', { amount: '12.34', currency: 'USD' }, { amount: '2.50', currency: 'USD' }],
      ['DE', { amount: '0.99', currency: 'EUR' }, { amount: '0.00', currency: 'USD' }],
      ['JP', { amount: '1234', currency: 'JPY' }, { amount: '0.05', currency: 'USD' }],
      ['UK', { amount: '0.07', currency: 'GBP' }, { amount: '0.05', currency: 'USD' }],
    ]);
  });

  it('a broken amount is drift at its own path, never a guess', () => {
    const read = contract.sales({ data: [{ ...row, domain: 1, royaltyCents: '12.34', adCents: 0 }] });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.issues[0]).toMatchObject({ path: 'data[0].royaltyCents', found: '"12.34"' });
  });

  it('the simulator writes the bare amount, and "no figure" as the first sentinel', () => {
    const wire = contract.nodes.sales.write({
      ...row,
      marketplace: 'DE',
      royalties: { amount: '0.99', currency: 'EUR' },
      ad_spend: null,
    });
    expect(wire).toEqual({ ...row, domain: 3, royaltyCents: 99, adCents: -1 });
  });
});

describe('"no figure" in money', () => {
  const contract = compiled(keepa);

  it('reads as null, and the engine leaves the day out (a partial day is never a change)', () => {
    const read = contract.sales({
      data: [
        { ...row, date: '2026-11-19', domain: 1, royaltyCents: 500, adCents: 0 },
        { ...row, date: '2026-11-20', domain: 1, royaltyCents: -1, adCents: 0 },
        { ...row, date: '2026-11-21', domain: 1, royaltyCents: 400, adCents: -1 },
        { ...row, date: '2026-11-22', domain: 1, royaltyCents: -2, adCents: 0 },
      ],
    });
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    expect(read.data.map((r) => r.royalties?.amount ?? null)).toEqual(['5.00', null, '4.00', null]);
    expect(read.data[2]?.ad_spend).toBeNull();
    expect(salesDaysOf(read.data).map((d) => d.date)).toEqual(['2026-11-19']);
  });

  it('missing and null as sentinels; without noFigure a -1 is an amount and null is drift', () => {
    const absent = compiled({
      endpoints: {
        sales: {
          fields: {
            royalties: {
              path: 'r',
              format: 'minor_units',
              currency: { fixed: 'EUR' },
              noFigure: ['missing', null],
            },
          },
        },
      },
    });
    const base = { ...row, marketplace: 'DE', ad_spend: { amount: '0.00', currency: 'EUR' } };
    const read = absent.sales({ data: [base, { ...base, r: null }, { ...base, r: 5 }] });
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    expect(read.data.map((r) => r.royalties)).toEqual([null, null, { amount: '0.05', currency: 'EUR' }]);

    const object = compiled({
      endpoints: { sales: { fields: { royalties: { path: 'royalties', noFigure: [null] } } } },
    });
    const none = object.sales({
      data: [
        { ...base, royalties: null },
        { ...base, royalties: { amount: null } },
      ],
    });
    if (!none.ok) throw new Error(JSON.stringify(none.issues));
    expect(none.data.map((r) => r.royalties)).toEqual([null, null]);

    const plain = compiled({
      endpoints: {
        sales: { fields: { royalties: { path: 'r', format: 'minor_units', currency: { fixed: 'EUR' } } } },
      },
    });
    const minus = plain.sales({ data: [{ ...base, r: -1 }] });
    if (!minus.ok) throw new Error(JSON.stringify(minus.issues));
    expect(minus.data[0]?.royalties).toEqual({ amount: '-0.01', currency: 'EUR' });
    expect(plain.sales({ data: [{ ...base, r: null }] }).ok).toBe(false);
  });
});

describe('"no figure" through the sales rules: nothing false alerted, nothing known erased', () => {
  const rules = [rule({ id: 'roy', kind: 'royalty_change' }), rule({ id: 'rev', kind: 'sales_revision' })];
  /** Days 1..n at these royalty cents; -1 is "no figure". */
  const answer = (cents: number[]) => ({
    data: cents.map((c, i) => ({
      asin: ASIN,
      domain: 1,
      date: date(i + 1),
      units: 10,
      royaltyCents: c,
      adCents: 0,
    })),
  });
  /** One sales poll an answer, each over the days the poll before kept (as src/poll/fetch.ts does). */
  const polls = (contract: CompiledContract, answers: number[][]) => {
    let known: SalesDay[] | undefined;
    return answers.map((cents, n) => {
      const read = contract.sales(answer(cents));
      if (!read.ok) throw new Error(JSON.stringify(read.issues));
      known = salesDaysOver(read.data, known);
      return sales(Date.UTC(2026, 10, 10 + n, 6), known);
    });
  };
  const week = [10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000];

  it('a new day and a known day without figures are no change; their figures later are judged as usual', () => {
    const observed = polls(compiled(keepa), [
      week,
      [...week.slice(0, 6), -1, -1], // day 7 (known) and day 8 (new): no figure
      [...week, 10_000], // their figures: as before, day 8 normal
      [...week, 10_000, 2_000], // a real drop on day 9 still fires
    ]);
    expect(observed[1]?.days.map((d) => d.date)).toEqual(week.map((_, i) => date(i + 1)));
    expect(run(rules, observed).perPoll.map(kinds)).toEqual([[], [], [], ['royalty_change']]);
  });

  it('an answer with no figure in any row keeps every known day, and a drop when they return alerts', () => {
    const observed = polls(compiled(keepa), [week, [...week, 10_000].map(() => -1), [...week, 2_000]]);
    expect(observed[1]?.days).toEqual(observed[0]?.days);
    expect(run(rules, observed).perPoll.map(kinds)).toEqual([[], [], ['royalty_change']]);
  });

  it('a judged day that loses its figures keeps them: back the same is nothing, back changed a revision', () => {
    const observed = polls(compiled(keepa), [
      week,
      [...week, 2_000],
      [...week, -1],
      [...week, 2_000],
      [...week, -1],
      [...week, 2_500],
    ]);
    expect(run(rules, observed).perPoll.map(kinds)).toEqual([
      [],
      ['royalty_change'],
      [],
      [],
      [],
      ['sales_revision'],
    ]);
  });

  it('read without noFigure, the same -1 would be a royalty drop', () => {
    const plain = compiled({
      ...keepa,
      endpoints: {
        sales: {
          fields: {
            ...keepa.endpoints.sales.fields,
            royalties: { path: 'royaltyCents', format: 'minor_units', currency: { fromMarketplace: true } },
          },
        },
      },
    });
    expect(run(rules, polls(plain, [week, [...week, -1]])).perPoll.map(kinds)).toEqual([
      [],
      ['royalty_change'],
    ]);
  });
});

describe('a rate limit stated per second', () => {
  const spApi = compiled({ rateLimit: { per: 'second', limit: 'x-amzn-RateLimit-Limit' } });

  it('is read as the whole requests a minute the budget counts; a remaining is not read', () => {
    expect(spApi.rateLimit({ 'x-amzn-ratelimit-limit': '0.5' }, 0)).toEqual({ limit: 30 });
    expect(spApi.rateLimit({ 'x-amzn-ratelimit-limit': '0.0167' }, 0)).toEqual({ limit: 1 });
    // The default's X-RateLimit-Remaining stays in the merged contract: a bucket's count, ignored.
    expect(spApi.rateLimit({ 'x-amzn-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' }, 0)).toEqual({
      limit: 120,
    });
    expect(spApi.rateLimit({ 'x-amzn-ratelimit-limit': 'fast' }, 0)).toEqual({});
  });

  it('the simulator states its minute limit per second', () => {
    const headers = headerSignals(spApi)({ 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '29' }, 0);
    expect(headers['x-amzn-RateLimit-Limit']).toBe('0.5');
    expect(spApi.rateLimit({ 'x-amzn-ratelimit-limit': headers['x-amzn-RateLimit-Limit'] }, 0)).toEqual({
      limit: 30,
    });
  });
});

describe('bad input is a validate error with the place and the fix', () => {
  const sales = (royalties: unknown) => ({ endpoints: { sales: { fields: { royalties } } } });

  it('an unknown currency code, and one in lower case', () => {
    const unknown = problems(sales({ path: 'r', format: 'minor_units', currency: { fixed: 'XYZ' } }));
    expect(unknown[0]).toMatchObject({
      path: 'endpoints.sales.fields.royalties.currency.fixed',
      message: 'unknown currency "XYZ"',
    });
    expect(unknown[0]?.hint).toContain('ISO 4217');
    const lower = problems(sales({ path: 'r', format: 'minor_units', currency: { fixed: 'usd' } }));
    expect(lower[0]?.hint).toContain('did you mean "USD"?');
  });

  it('noFigure on a field that is not money; no amount named; a per-second remaining', () => {
    expect(
      problems({ endpoints: { sales: { fields: { units: { path: 'u', noFigure: [-1] } } } } })[0]?.path,
    ).toBe('endpoints.sales.fields.units');
    expect(problems(sales({ path: '', currency: { fixed: 'USD' } }))[0]?.path).toBe(
      'endpoints.sales.fields.royalties.amount',
    );
    expect(
      problems({ rateLimit: { per: 'second', limit: 'x-amzn-RateLimit-Limit', remaining: 'X-Left' } })[0],
    ).toMatchObject({ path: 'rateLimit.remaining' });
  });

  it('an unknown spelling of the currency is refused by the schema', () => {
    expect(problems(sales({ path: 'r', currency: { marketplace: true } })).length).toBeGreaterThan(0);
  });
});
