import { describe, expect, it } from 'vitest';
import type { SalesDay } from '../../src/model/observation.ts';
import { evaluate } from '../../src/rules/engine.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { DAY, date, day, kinds, rule, run, sales } from './helpers.ts';

const change = (extra: object = {}) => rule({ id: 'roy', kind: 'royalty_change', ...extra });
const revision = rule({ id: 'rev', kind: 'sales_revision' });
/** Poll times: the morning after the newest day. */
const at = (n: number) => Date.UTC(2026, 10, 2 + n, 6);
/** Days 1..n of one series at these royalties (minor units). */
const series = (values: number[], currency = 'USD', extra: Partial<SalesDay> = {}) =>
  values.map((v, i) => day(date(i + 1), v, extra, currency));

function twoPolls(before: SalesDay[], after: SalesDay[], rules = [change()]) {
  return run(rules, [sales(at(7), before), sales(at(8), after)]);
}

describe('royalty_change', () => {
  const week = series([10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);

  it('is silent on the first poll and fires once for a new day that fell against the trailing average', () => {
    const next = [...week, day(date(8), 3_000)];
    const { perPoll } = run([change()], [sales(at(7), week), sales(at(8), next), sales(at(9), next)]);
    expect(perPoll.map(kinds)).toEqual([[], ['royalty_change'], []]);
    const alert = perPoll[1]?.[0];
    expect(alert?.title).toBe(
      'Royalties of B0CJ4XQ2ZK (US) on 2026-11-09: 30.00 USD, down 70% from the 7-day average of 100.00 USD',
    );
    expect(alert?.facts).toMatchObject({
      royalties: 3_000,
      currency: 'USD',
      dayBefore: 10_000,
      dayBeforeChangePct: -70,
      trailingAverage: 10_000,
      trailingChangePct: -70,
      trailingDaysUsed: 7,
      provisional: true,
    });
    expect(alert?.subject).toEqual({
      asin: 'B0CJ4XQ2ZK',
      marketplace: 'US',
      currency: 'USD',
      date: '2026-11-09',
    });
    expect(alert?.series).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 3_000]);
  });

  it('ignores changes under the percent or the absolute threshold, and rises by default', () => {
    expect(twoPolls(week, [...week, day(date(8), 6_000)]).alerts).toEqual([]); // -40%
    expect(twoPolls(week, [...week, day(date(8), 30_000)]).alerts).toEqual([]); // up
    const small = series([700, 700, 700, 700, 700, 700, 700]);
    expect(twoPolls(small, [...small, day(date(8), 300)]).alerts).toEqual([]); // -57% but 4.00
    expect(
      twoPolls(week, [...week, day(date(8), 30_000)], [change({ direction: 'up' })]).alerts,
    ).toHaveLength(1);
  });

  it('day-before and trailing comparisons are separate choices', () => {
    // A spike yesterday: today is normal against the week but -67% against the day before.
    const spiky = series([10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 30_000]);
    const next = [...spiky, day(date(8), 10_000)];
    expect(twoPolls(spiky, next, [change({ compareWith: 'trailing_average' })]).alerts).toEqual([]);
    expect(twoPolls(spiky, next, [change({ compareWith: 'both' })]).alerts).toEqual([]);
    const dayBefore = twoPolls(spiky, next, [change({ compareWith: 'day_before' })]).alerts;
    expect(dayBefore[0]?.title).toBe(
      'Royalties of B0CJ4XQ2ZK (US) on 2026-11-09: 100.00 USD, down 67% from the day before (300.00 USD)',
    );
    expect(twoPolls(spiky, next).alerts).toHaveLength(1); // default: either
  });

  it('never adds or compares money across currencies', () => {
    // The same book sold in two currencies: a total would collapse when the JPY day is missing.
    const usd = series([10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    const jpy = series([90_000, 90_000, 90_000, 90_000, 90_000, 90_000, 90_000], 'JPY', {
      marketplace: 'JP',
    });
    const sameMarket = series([90_000, 90_000, 90_000, 90_000, 90_000, 90_000, 90_000], 'EUR');
    const before = [...usd, ...jpy, ...sameMarket];
    expect(twoPolls(before, [...before, day(date(8), 10_000)]).alerts).toEqual([]);
    const { alerts } = twoPolls(before, [
      ...before,
      day(date(8), 10_000),
      day(date(8), 9_000, { marketplace: 'JP' }, 'JPY'),
    ]);
    expect(alerts.map((a) => [a.subject.currency, factsOf(a).trailingAverage])).toEqual([['JPY', 90_000]]);
    expect(alerts[0]?.title).toContain('9,000 JPY, down 90% from the 7-day average of 90,000 JPY');
  });

  it('judges each new day once even if several arrive together, and a new series silently', () => {
    const next = [...week, day(date(8), 3_000), day(date(9), 3_000), ...series([50_000], 'GBP')];
    const { alerts } = twoPolls(week, next);
    expect(alerts.map((a) => a.subject.date)).toEqual(['2026-11-09', '2026-11-10']);
  });
});

describe('sales_revision', () => {
  const week = series([10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);

  it('alerts a revision once, with before, after and delta, and never as a royalty change', () => {
    const revised = week.map((d) =>
      d.date === date(5) ? { ...d, units: 12, royalties: { minor: 2_000, currency: 'USD' } } : d,
    );
    const next = [...revised, day(date(8), 10_000)];
    const { perPoll } = run(
      [change(), revision],
      [sales(at(7), week), sales(at(8), next), sales(at(9), next)],
    );
    expect(perPoll.map(kinds)).toEqual([[], ['sales_revision'], []]);
    const alert = perPoll[1]?.[0];
    expect(alert?.facts).toMatchObject({
      date: '2026-11-06',
      unitsBefore: 10,
      unitsAfter: 12,
      unitsDelta: 2,
      royaltiesBefore: 10_000,
      royaltiesAfter: 2_000,
      royaltiesDelta: -8_000,
      adSpendDelta: 0,
      provisional: true,
    });
    expect(alert?.title).toBe(
      'Sales of B0CJ4XQ2ZK (US) for 2026-11-06 revised: royalties 100.00 → 20.00 USD (-80.00 USD), units 10 → 12',
    );
  });

  it('a revision of the newest day is a revision, not a second royalty change', () => {
    const first = [...week, day(date(8), 3_000)];
    const second = [...week, day(date(8), 2_000)];
    const { perPoll } = run(
      [change(), revision],
      [sales(at(7), week), sales(at(8), first), sales(at(9), second)],
    );
    expect(perPoll.map(kinds)).toEqual([[], ['royalty_change'], ['sales_revision']]);
  });

  it('a second revision of the same day is a new alert; the same revision re-run is not', () => {
    const r1 = week.map((d) =>
      d.date === date(5) ? { ...d, adSpend: { minor: 1_500, currency: 'USD' } } : d,
    );
    const r2 = week.map((d) =>
      d.date === date(5) ? { ...d, adSpend: { minor: 1_800, currency: 'USD' } } : d,
    );
    const { alerts } = run([revision], [sales(at(7), week), sales(at(8), r1), sales(at(9), r2)]);
    expect(alerts.map((a) => factsOf(a).adSpendAfter)).toEqual([1_500, 1_800]);
    expect(alerts[0]?.fingerprint).not.toBe(alerts[1]?.fingerprint);
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: at(8) };
    const again = evaluate(
      { ...ctx, nowMs: at(8) + DAY / 2 },
      [revision],
      sales(at(7), week),
      sales(at(8) + DAY / 2, r1),
      undefined,
    );
    expect(again.alerts[0]?.fingerprint).toBe(alerts[0]?.fingerprint);
  });

  it('names the book by its title first when a book snapshot knows it (issue 25)', () => {
    const revised = week.map((d) => (d.date === date(5) ? { ...d, units: 12 } : d));
    const ctx = {
      workspace: 'ws',
      targetId: 't1',
      nowMs: at(8),
      books: new Map([['B0CJ4XQ2ZK|US', { title: 'The Lighthouse Keeper', author: 'M. A. Winter' }]]),
    };
    const { alerts } = evaluate(ctx, [revision], sales(at(7), week), sales(at(8), revised), undefined);
    expect(alerts[0]?.title).toMatch(/^Sales of “The Lighthouse Keeper” \(B0CJ4XQ2ZK, US\) for /);
    expect(alerts[0]?.facts).toMatchObject({ bookTitle: 'The Lighthouse Keeper', author: 'M. A. Winter' });
  });

  it('compares a revised day only with the same day in the same currency', () => {
    const usd = day(date(5), 10_000);
    const eur = day(date(5), 9_000, {}, 'EUR');
    const { alerts } = run(
      [revision],
      [sales(at(7), [usd, eur]), sales(at(8), [usd, { ...eur, units: 11 }])],
    );
    expect(alerts.map((a) => [a.subject.currency, factsOf(a).royaltiesDelta, factsOf(a).unitsDelta])).toEqual(
      [['EUR', 0, 1]],
    );
  });

  it('minRoyaltyChange ignores small revisions', () => {
    const revised = week.map((d) =>
      d.date === date(5) ? { ...d, royalties: { minor: 10_050, currency: 'USD' } } : d,
    );
    const r = rule({ id: 'rev', kind: 'sales_revision', minRoyaltyChange: 100 });
    expect(run([r], [sales(at(7), week), sales(at(8), revised)]).alerts).toEqual([]);
  });
});
