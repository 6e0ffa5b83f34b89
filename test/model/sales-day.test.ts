/**
 * salesDaysOver: a row without figures keeps what was known of its day, and only that. Its money is
 * null, so its currency is unknown: a day known in two currencies keeps the one no row gave figures for.
 */
import { describe, expect, it } from 'vitest';
import type { SalesDay } from '../../src/model/observation.ts';
import { type SalesRowRead, salesDaysOver } from '../../src/model/sales-day.ts';

const row = (currency: string | null, amount = '10.00'): SalesRowRead => ({
  asin: 'B0CJ4XQ2ZK',
  marketplace: 'UK',
  date: '2026-11-20',
  units: 3,
  royalties: currency === null ? null : { amount, currency },
  ad_spend: currency === null ? null : { amount: '0.00', currency },
});
const known = (currency: string, minor: number): SalesDay => ({
  asin: 'B0CJ4XQ2ZK',
  marketplace: 'UK',
  date: '2026-11-20',
  units: 3,
  royalties: { minor, currency },
  adSpend: { minor: 0, currency },
});

describe('salesDaysOver', () => {
  const before = [known('GBP', 900), known('USD', 1_100)];

  it('keeps the known day of a currency no row gave figures for, beside a row with figures in another', () => {
    const days = salesDaysOver([row('USD', '12.00'), row(null)], before);
    expect(days).toEqual([{ ...known('USD', 1_200) }, known('GBP', 900)]);
  });

  it('keeps every known currency when no row has figures, and none when the answer no longer has the day', () => {
    expect(salesDaysOver([row(null)], before)).toEqual(before);
    expect(salesDaysOver([row('USD', '12.00')], before)).toEqual([known('USD', 1_200)]);
  });
});
