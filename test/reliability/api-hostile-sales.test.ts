/**
 * Hostile values in otherwise well-formed sales answers (GET /v1/sales), through the real client
 * and poll processor: an error outcome with the baseline kept, or sane data; never a crash, never
 * a change alert, then or at the next valid answer.
 */
import { describe, expect, it } from 'vitest';
import { type Answer, reviewsPage, salesDay, salesDays } from './fixtures/api-payloads.ts';
import { EITHER, ERROR, type Json, OK, type Status, useHostileApi } from './fixtures/harmless.ts';

const checks = useHostileApi('rel-sales', ['sales']);
const { newAlerts, changes, poll, expectHarmless } = checks;

const salesText = (days: unknown[]) => JSON.stringify(reviewsPage(days));

describe('GET /v1/sales', () => {
  const day = (overrides: Json) => salesText([...salesDays().slice(0, 4), salesDay(lastDate(), overrides)]);
  const cases: [string, () => Answer, Status[]][] = [
    ['units 1.5', () => day({ units: 1.5 }), ERROR],
    ['units 1e300', () => day({ units: 1e300 }), ERROR],
    ['units null', () => day({ units: null }), ERROR],
    ['units "12"', () => day({ units: '12' }), ERROR],
    ['currency "usd"', () => day({ royalties: { amount: '87.12', currency: 'usd' } }), ERROR],
    ['currency "US DOLLAR"', () => day({ royalties: { amount: '87.12', currency: 'US DOLLAR' } }), ERROR],
    ['an unknown currency "XXX"', () => day({ royalties: { amount: '87.12', currency: 'XXX' } }), EITHER],
    ['amount "1e5"', () => day({ royalties: { amount: '1e5', currency: 'USD' } }), ERROR],
    ['amount "NaN"', () => day({ royalties: { amount: 'NaN', currency: 'USD' } }), ERROR],
    ['amount "Infinity"', () => day({ royalties: { amount: 'Infinity', currency: 'USD' } }), ERROR],
    ['amount as a number', () => day({ royalties: { amount: 87.12, currency: 'USD' } }), ERROR],
    ['amount ""', () => day({ royalties: { amount: '', currency: 'USD' } }), ERROR],
    // Minor units beyond 2^53 are not exact any more: today this is read, alerted and shown as
    // "royalties 87.12 → 1e,+25.44 USD". An amount that cannot be held exactly must be refused.
    [
      'amount of 10^25 dollars',
      () => day({ royalties: { amount: '10000000000000000000000000.00', currency: 'USD' } }),
      ERROR,
    ],
    ['date "2026-02-30"', () => day({ date: '2026-02-30' }), ERROR],
    ['date "2026-13-01"', () => day({ date: '2026-13-01' }), ERROR],
    ['date "20261120"', () => day({ date: '20261120' }), ERROR],
    ['dates out of order', () => salesText(salesDays().reverse()), OK],
    ['every day listed twice, identically', () => salesText([...salesDays(), ...salesDays()]), OK],
    [
      'a page of 50,000 days (about 9 MB)',
      () => salesText(Array.from({ length: 50_000 }, () => salesDays().at(-1))),
      EITHER,
    ],
  ];

  it.each(cases)(
    '%s',
    async (_name, answer, allowed) => {
      await expectHarmless('sales', answer(), allowed);
    },
    20_000,
  );

  const MAX = Number.MAX_SAFE_INTEGER;
  it.each([
    ['units of 2^53 - 1', () => day({ units: MAX })],
    ['units of -(2^53 - 1)', () => day({ units: -MAX })],
    [
      'royalties of 90 trillion dollars',
      () => day({ royalties: { amount: '90071992547409.91', currency: 'USD' } }),
    ],
    [
      'royalties with 40 decimals',
      () => day({ royalties: { amount: `1.${'9'.repeat(40)}`, currency: 'USD' } }),
    ],
    ['a yen amount with decimals', () => day({ royalties: { amount: '100.5', currency: 'JPY' } })],
    ['a date in year 1', () => day({ date: '0001-01-01' })],
  ] as [string, () => Answer][])(
    '%s: read or refused, never a crash; the same answer again is no change',
    async (_n, answer) => {
      await checks.expectStableTwice('sales', answer());
    },
  );

  it('a day listed twice with different figures is not a revision when nothing changed', async () => {
    // The same (asin, marketplace, date) twice in one answer, with different royalties: the API
    // contradicts itself. Answered the same way twice, nothing changed between the polls.
    const contradicting = salesText([
      ...salesDays(),
      salesDay(lastDate(), { royalties: { amount: '5.00', currency: 'USD' } }),
    ]);
    const valid = checks.api.play.sales;
    try {
      checks.api.play.sales = contradicting;
      await poll('sales');
      newAlerts();
      expect(await poll('sales')).toMatchObject({ status: 'ok' });
      expect(changes(newAlerts())).toEqual([]);
    } finally {
      checks.api.play.sales = valid;
      await poll('sales');
      newAlerts();
    }
  });
});

function lastDate(): string {
  return String(salesDays().at(-1)?.date);
}
