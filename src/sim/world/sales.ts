import type { Rng } from '../prng.ts';
import { DAY, HOUR, isoDate } from '../time.ts';
import { generatedBsr } from './bsr.ts';
import type { Book } from './catalogue.ts';
import type { EventStore } from './events.ts';
import { currencyOf, type Marketplace, money } from './market.ts';

/**
 * Daily sales. The final figures of a day follow from the book's rank that day; for 14 days
 * they are provisional and drift towards the final ones as days pass (late royalties, ad spend
 * attributed late), so a client polling daily sees deterministic revisions.
 */
export const PROVISIONAL_DAYS = 14;

export interface SalesRow {
  asin: string;
  marketplace: Marketplace;
  date: string;
  units: number;
  royalties: { amount: string; currency: string };
  ad_spend: { amount: string; currency: string };
}

interface Figures {
  units: number;
  royaltiesMinor: number;
  adSpendMinor: number;
}

function finalFigures(rng: Rng, book: Book, marketplace: Marketplace, dateMs: number): Figures {
  const hour = (dateMs + 12 * HOUR) / HOUR;
  const rank = generatedBsr(rng, book, marketplace, hour) ?? Math.round(10 ** book.baseLogRank);
  const currency = currencyOf(marketplace);
  const expected = 3000 * rank ** -0.7 * Math.sqrt(currency.size);
  const key = [book.asin, marketplace, dateMs] as const;
  const units = Math.max(0, Math.round(expected + Math.sqrt(expected) * rng.normal('units', ...key)));
  // Converts US cents to the marketplace's minor unit (yen have no cents).
  const minorPerUsdCent = (currency.perUsd * 10 ** currency.decimals) / 100;
  const pagesRead = expected * 8 * rng.between(0.5, 1.5, 'kenp', ...key);
  const royaltiesMinor = (units * book.priceUsdCents * 0.7 + pagesRead) * minorPerUsdCent;
  const adSpendMinor =
    book.adBudgetUsdCents === 0
      ? 0
      : book.adBudgetUsdCents *
        rng.between(0.4, 1.2, 'ad-spend', ...key) *
        Math.sqrt(currency.size) *
        minorPerUsdCent;
  return { units, royaltiesMinor: Math.round(royaltiesMinor), adSpendMinor: Math.round(adSpendMinor) };
}

/** What the report shows `age` days after the date: units settle in 3 days, money in 14. */
function provisional(
  rng: Rng,
  final: Figures,
  key: readonly [string, Marketplace, number],
  age: number,
): Figures {
  if (age >= PROVISIONAL_DAYS) return final;
  const units = age >= 3 ? final.units : final.units - Math.floor(final.units * (3 - age) * 0.06);
  const royaltyShare =
    0.78 + (0.22 * age) / PROVISIONAL_DAYS + 0.03 * rng.signed('royalty-drift', ...key, age);
  const adShare = Math.min(1, 0.55 + (0.45 * age) / 10);
  return {
    units,
    royaltiesMinor: Math.round(final.royaltiesMinor * royaltyShare),
    adSpendMinor: Math.round(final.adSpendMinor * adShare),
  };
}

/** The row for one book, marketplace and UTC day as reported at `nowMs`; the day must not be in the future. */
export function salesRow(
  rng: Rng,
  events: EventStore,
  book: Book,
  marketplace: Marketplace,
  dateMs: number,
  nowMs: number,
): SalesRow {
  const age = Math.floor((nowMs - dateMs) / DAY);
  const figures = provisional(
    rng,
    finalFigures(rng, book, marketplace, dateMs),
    [book.asin, marketplace, dateMs],
    age,
  );
  const revision = events.salesRevision(book.asin, marketplace, dateMs, nowMs);
  return {
    asin: book.asin,
    marketplace,
    date: isoDate(dateMs),
    units: revision?.units ?? figures.units,
    royalties: money(revision?.royaltiesMinor ?? figures.royaltiesMinor, marketplace),
    ad_spend: money(revision?.adSpendMinor ?? figures.adSpendMinor, marketplace),
  };
}
