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
 * left out, never read as 0: 0 would be a royalty drop to alert, or a revision of the day's figures.
 * The digest sums these; a poll keeps what it knew of the others (`salesDaysOver`).
 */
export function salesDaysOf(rows: readonly SalesRowRead[]): SalesDay[] {
  const days: SalesDay[] = [];
  for (const row of rows) {
    const { royalties, ad_spend } = row;
    if (royalties !== null && ad_spend !== null) days.push(salesDayOf({ ...row, royalties, ad_spend }));
  }
  return days;
}

const dayOf = (d: { asin: string; marketplace: string; date: string }) =>
  `${d.asin}|${d.marketplace}|${d.date}`;

/**
 * A poll's days: those of the answer that have their figures, and for a row without them ("no
 * figure") the day as it was known before, in every currency it was known in. A partial answer is
 * never a change: it erases nothing, so when the figures return they are compared with the last known
 * ones (a revision if they differ; a new day judged against the days before it). A row without
 * figures and no known day is left out: no baseline is made of nothing.
 */
export function salesDaysOver(
  rows: readonly SalesRowRead[],
  known: readonly SalesDay[] | undefined,
): SalesDay[] {
  const days = salesDaysOf(rows);
  if (known === undefined || known.length === 0 || days.length === rows.length) return days;
  // A row without figures has no currency either: it keeps the known days of its book, marketplace
  // and date in every currency that no row of the answer gave figures for (a USD row with figures
  // beside one without keeps the GBP day known before).
  const figured = new Set(days.map((day) => `${dayOf(day)}|${day.royalties.currency}`));
  const unfigured = new Set(rows.filter((row) => row.royalties === null || row.ad_spend === null).map(dayOf));
  for (const day of known) {
    const key = dayOf(day);
    if (unfigured.has(key) && !figured.has(`${key}|${day.royalties.currency}`)) days.push(day);
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
