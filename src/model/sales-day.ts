import { toMinor } from '../util/money.ts';
import type { SalesDay } from './observation.ts';

/** One row of the API's sales list, as its schema reads it (src/api/schemas.ts). */
export interface SalesRow {
  asin: string;
  marketplace: string;
  date: string;
  units: number;
  royalties: { amount: string; currency: string };
  ad_spend: { amount: string; currency: string };
}

/**
 * The API's sales row → integer minor units; its own day label is kept as it is. The one mapping
 * for the poller's sales target and the digest's sales walk.
 */
export function salesDayOf(row: SalesRow): SalesDay {
  return {
    asin: row.asin,
    marketplace: row.marketplace,
    date: row.date,
    units: row.units,
    royalties: {
      minor: toMinor(row.royalties.amount, row.royalties.currency),
      currency: row.royalties.currency,
    },
    adSpend: { minor: toMinor(row.ad_spend.amount, row.ad_spend.currency), currency: row.ad_spend.currency },
  };
}
