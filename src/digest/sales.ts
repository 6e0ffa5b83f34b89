/**
 * Sales figures of one digest, pure. A row is one (ASIN, marketplace, date) as the API reported
 * it; a pair with no row on a date has "no data" that day, which never counts as 0. Money is
 * summed only within one currency.
 */
import type { SalesDay } from '../model/observation.ts';
import { isProvisional } from '../rules/sales.ts';
import { addDays, dateRange } from './dates.ts';
import type {
  Amounts,
  CurrencyTotals,
  LastDigest,
  PairFigures,
  PairRef,
  Revision,
  SalesMover,
  SalesSection,
} from './types.ts';

/** A sales mover changes by at least this share of its baseline... */
export const SALES_MOVER_SHARE = 0.3;
/** ...with at least this many days of data in the baseline... */
export const SALES_MOVER_MIN_DAYS = 3;

/** ...and is not a move between amounts too small to matter: 100 minor units (1.00; 100 yen). */
export const SMALL_AMOUNT_MINOR = 100;

const pairKey = (p: PairRef): string => `${p.asin}|${p.marketplace}`;

/** Adds up rows of one royalties currency; ad spend in another currency leaves net and ACoS unknown. */
export function sumAmounts(rows: readonly SalesDay[]): Amounts {
  let units = 0;
  let royalties = 0;
  let adSpend = 0;
  let mixed = false;
  for (const row of rows) {
    units += row.units;
    royalties += row.royalties.minor;
    if (row.adSpend.currency === row.royalties.currency) adSpend += row.adSpend.minor;
    else mixed = true;
  }
  return {
    units,
    royalties,
    adSpend,
    net: mixed ? null : royalties - adSpend,
    acos: mixed || royalties === 0 ? null : adSpend / royalties,
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

function byPairThenMarket(a: PairRef, b: PairRef): number {
  return a.asin === b.asin ? a.marketplace.localeCompare(b.marketplace) : a.asin.localeCompare(b.asin);
}

export function salesSection(options: {
  rows: readonly SalesDay[];
  day: string;
  nowMs: number;
  expectedPairs: readonly PairRef[];
  titles: ReadonlyMap<string, string>;
  previous: LastDigest | null;
  fetchedFrom: string;
}): Extract<SalesSection, { status: 'ok' }> {
  const { day, nowMs } = options;
  const dates = dateRange(addDays(day, -6), day);
  const inWeek = new Set(dates);
  const rows = options.rows;
  const byPair = groupBy(rows, pairKey);

  const pairs: PairFigures[] = [];
  for (const [key, pairRows] of byPair) {
    const [asin = '', marketplace = ''] = key.split('|');
    // A pair answers in one currency; a second one (never seen) would be kept apart, not summed.
    for (const [currency, currencyRows] of groupBy(pairRows, (r) => r.royalties.currency)) {
      const week = currencyRows.filter((r) => inWeek.has(r.date));
      const yesterday = currencyRows.filter((r) => r.date === day);
      pairs.push({
        asin,
        marketplace,
        currency,
        title: options.titles.get(asin) ?? null,
        yesterday:
          yesterday.length === 0
            ? null
            : { ...sumAmounts(yesterday), provisional: isProvisional(day, nowMs) },
        week:
          week.length === 0
            ? null
            : {
                ...sumAmounts(week),
                daysWithData: new Set(week.map((r) => r.date)).size,
                provisional: week.some((r) => isProvisional(r.date, nowMs)),
              },
      });
    }
  }
  pairs.sort((a, b) => byPairThenMarket(a, b) || a.currency.localeCompare(b.currency));

  const reported = new Set(rows.filter((r) => r.date === day).map(pairKey));
  const expected = new Map<string, PairRef>();
  for (const p of [...options.expectedPairs, ...pairs]) expected.set(pairKey(p), p);
  const missingYesterday = [...expected.values()]
    .filter((p) => !reported.has(pairKey(p)))
    .map((p) => ({ asin: p.asin, marketplace: p.marketplace }))
    .sort(byPairThenMarket);

  const changes =
    options.previous === null ? [] : revisions(options.previous, rows, options.fetchedFrom, day);
  return {
    status: 'ok',
    dates,
    pairs,
    totals: currencyTotals(rows, dates, day, nowMs),
    missingYesterday,
    movers: salesMovers(rows, day, options.fetchedFrom),
    revisions: changes,
    revisionTotals: revisionTotals(changes),
  };
}

/** Sums of the money the revisions moved, per currency (units are left out: they carry none). */
export function revisionTotals(
  changes: readonly Revision[],
): { currency: string; royalties: number; figures: number }[] {
  const totals = new Map<string, { currency: string; royalties: number; figures: number }>();
  for (const r of changes) {
    const currency = r.currency;
    if (currency === null) continue;
    const total = totals.get(currency) ?? { currency, royalties: 0, figures: 0 };
    total.figures += 1;
    if (r.kind === 'late') total.royalties += r.royalties;
    else if (r.kind === 'withdrawn') total.royalties -= r.royalties;
    else if (r.field === 'royalties') total.royalties += r.after - r.before;
    totals.set(currency, total);
  }
  return [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

function currencyTotals(
  rows: readonly SalesDay[],
  dates: string[],
  day: string,
  nowMs: number,
): CurrencyTotals[] {
  const totals: CurrencyTotals[] = [];
  for (const [currency, currencyRows] of groupBy(rows, (r) => r.royalties.currency)) {
    const week = currencyRows.filter((r) => dates.includes(r.date));
    const yesterday = currencyRows.filter((r) => r.date === day);
    const byDate = groupBy(currencyRows, (r) => r.date);
    totals.push({
      currency,
      yesterday:
        yesterday.length === 0
          ? null
          : {
              ...sumAmounts(yesterday),
              pairs: new Set(yesterday.map(pairKey)).size,
              provisional: isProvisional(day, nowMs),
            },
      week:
        week.length === 0
          ? null
          : { ...sumAmounts(week), provisional: week.some((r) => isProvisional(r.date, nowMs)) },
      daily: dates.map((date) => {
        const dayRows = byDate.get(date);
        return dayRows === undefined ? null : dayRows.reduce((sum, r) => sum + r.royalties.minor, 0);
      }),
    });
  }
  return totals.sort((a, b) => a.currency.localeCompare(b.currency));
}

/**
 * The digest day's royalties against the mean of the pair's days with data in the 7 days before
 * (`fetchedFrom`..day − 1). Days without data are left out of the mean, never counted as 0.
 */
function salesMovers(rows: readonly SalesDay[], day: string, from: string): SalesMover[] {
  const movers: SalesMover[] = [];
  const groups = groupBy(rows, (r) => `${pairKey(r)}|${r.royalties.currency}`);
  for (const group of groups.values()) {
    const today = group.find((r) => r.date === day);
    const before = group.filter((r) => r.date >= from && r.date < day);
    if (today === undefined || before.length < SALES_MOVER_MIN_DAYS) continue;
    const baseline = Math.round(before.reduce((sum, r) => sum + r.royalties.minor, 0) / before.length);
    const now = today.royalties.minor;
    const change = now - baseline;
    if (Math.max(now, baseline) < SMALL_AMOUNT_MINOR) continue;
    if (baseline !== 0 && Math.abs(change) < SALES_MOVER_SHARE * baseline) continue;
    movers.push({
      asin: today.asin,
      marketplace: today.marketplace,
      currency: today.royalties.currency,
      yesterday: now,
      baseline,
      changePct: baseline === 0 ? null : (change / baseline) * 100,
    });
  }
  const size = (m: SalesMover) => (m.changePct === null ? Number.POSITIVE_INFINITY : Math.abs(m.changePct));
  return movers.sort((a, b) => size(b) - size(a) || byPairThenMarket(a, b));
}

const FIELDS = ['royalties', 'units', 'adSpend'] as const;

/**
 * What changed in the days both digests covered. A day now missing is "withdrawn" and a day that
 * was missing and now has a row is "late" — only for pairs the last digest already had rows for,
 * so a newly watched book does not read as a week of late reports.
 */
function revisions(previous: LastDigest, rows: readonly SalesDay[], from: string, day: string): Revision[] {
  if (previous.salesFrom === null || previous.salesTo === null) return [];
  const lo = from > previous.salesFrom ? from : previous.salesFrom;
  const hi = day < previous.salesTo ? day : previous.salesTo;
  const inOverlap = (r: SalesDay) => r.date >= lo && r.date <= hi;
  const before = new Map(previous.sales.filter(inOverlap).map((r) => [`${pairKey(r)}|${r.date}`, r]));
  const after = new Map(rows.filter(inOverlap).map((r) => [`${pairKey(r)}|${r.date}`, r]));
  const knownPairs = new Set(previous.sales.map(pairKey));
  const out: Revision[] = [];
  for (const [key, old] of before) {
    const now = after.get(key);
    const where = { asin: old.asin, marketplace: old.marketplace, date: old.date };
    if (now === undefined || now.royalties.currency !== old.royalties.currency) {
      out.push({
        ...where,
        kind: 'withdrawn',
        royalties: old.royalties.minor,
        currency: old.royalties.currency,
      });
      if (now !== undefined)
        out.push({
          ...where,
          kind: 'late',
          royalties: now.royalties.minor,
          currency: now.royalties.currency,
        });
      continue;
    }
    for (const field of FIELDS) {
      const a = field === 'units' ? old.units : old[field].minor;
      const b = field === 'units' ? now.units : now[field].minor;
      if (a === b) continue;
      const currency = field === 'units' ? null : now[field].currency;
      out.push({ ...where, kind: 'revised', field, before: a, after: b, currency });
    }
  }
  for (const [key, now] of after) {
    if (before.has(key) || !knownPairs.has(pairKey(now))) continue;
    out.push({
      asin: now.asin,
      marketplace: now.marketplace,
      date: now.date,
      kind: 'late',
      royalties: now.royalties.minor,
      currency: now.royalties.currency,
    });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date) || byPairThenMarket(a, b));
}
