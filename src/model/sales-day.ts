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

/** A row as the client reads it: money null where the API sent "no figure" (a contract's noFigure). */
export interface SalesRowRead extends Omit<SalesRow, 'royalties' | 'ad_spend'> {
  royalties: SalesRow['royalties'] | null;
  ad_spend: SalesRow['ad_spend'] | null;
}

/**
 * The days that have their figures. A day whose royalties or ad spend the API sent as "no figure" is
 * left out, never read as 0: a partial answer is never a change (0 would be a royalty drop to alert,
 * or a revision of the day's figures). The day is judged when its figures come; a day stored before
 * leaves the snapshot until then; its return is no revision (nothing to compare it with) and is
 * judged again as a new day, with the same alert fingerprint as before (deliveries send it once).
 */
export function salesDaysOf(rows: readonly SalesRowRead[]): SalesDay[] {
  const days: SalesDay[] = [];
  for (const row of rows) {
    const { royalties, ad_spend } = row;
    if (royalties !== null && ad_spend !== null) days.push(salesDayOf({ ...row, royalties, ad_spend }));
  }
  return days;
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
