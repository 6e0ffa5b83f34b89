/**
 * Rank movers, pure. Ranks behave like a log scale (one sale lifts #500,000 to #300,000 but
 * #50 only to #49), so a move is measured as log10(before ÷ after): #500,000 → #300,000 and
 * #50 → #30 are the same move, 0.22, and positive is always better (a lower rank).
 */
import type { BookObservation, KeywordsObservation, RankPoint } from '../model/observation.ts';
import { median } from '../util/stats.ts';
import { addDays, localDayBounds } from './dates.ts';
import type { BsrLine, KeywordMove, LastDigest } from './types.ts';

/** A BSR move worth listing: the median rank changed by a factor of 1.25 or more. */
export const BSR_MOVER_FACTOR = 1.25;
/** A local day's median needs this many hourly points (Amazon skips updates, ranks vanish). */
export const BSR_MIN_POINTS = 6;
/** A keyword move worth listing: a factor of 1.25 and at least 2 positions (#1 → #2 is one). */
export const KEYWORD_MOVER_FACTOR = 1.25;
export const KEYWORD_MIN_POSITIONS = 2;
/** Float slack so a factor of exactly 1.25 counts. */
const EPSILON = 1e-9;

/** Larger moves first; moves equal up to float noise (#500,000 → #300,000 and #50 → #30) tie. */
function bySize(a: number | null, b: number | null): number {
  const diff = Math.abs(b ?? 0) - Math.abs(a ?? 0);
  return Math.abs(diff) < EPSILON ? 0 : diff;
}

export function logChange(before: number, after: number): number {
  return Math.log10(before) - Math.log10(after);
}

function pointsIn(history: readonly RankPoint[], startMs: number, endMs: number): RankPoint[] {
  return history.filter((p) => p.at >= startMs && p.at < endMs);
}

function dayMedian(points: readonly RankPoint[]): { median: number | null; count: number } {
  const ranks = points.flatMap((p) => (p.rank === null ? [] : [p.rank]));
  return { median: ranks.length >= BSR_MIN_POINTS ? median(ranks) : null, count: ranks.length };
}

/**
 * Each book's median rank over the recipient's local digest day against the local day before.
 * The days come from the time zone, so the day of a daylight-saving change has 23 or 25 points.
 */
export function bsrLines(books: readonly BookObservation[], day: string, timeZone: string): BsrLine[] {
  const today = localDayBounds(day, timeZone);
  const before = localDayBounds(addDays(day, -1), timeZone);
  return books
    .map((book) => {
      const y = dayMedian(pointsIn(book.bsrHistory, today.startMs, today.endMs));
      const d = dayMedian(pointsIn(book.bsrHistory, before.startMs, before.endMs));
      return {
        asin: book.asin,
        marketplace: book.marketplace,
        title: book.title,
        yesterdayMedian: y.median,
        dayBeforeMedian: d.median,
        pointsYesterday: y.count,
        pointsDayBefore: d.count,
        change: y.median === null || d.median === null ? null : logChange(d.median, y.median),
        history: pointsIn(book.bsrHistory, before.startMs, today.endMs),
      };
    })
    .sort((a, b) => a.asin.localeCompare(b.asin) || a.marketplace.localeCompare(b.marketplace));
}

export function bsrMovers(lines: readonly BsrLine[], limit = 5): BsrLine[] {
  const threshold = Math.log10(BSR_MOVER_FACTOR) - EPSILON;
  return lines
    .filter((line) => line.change !== null && Math.abs(line.change) >= threshold)
    .sort(
      (a, b) =>
        bySize(a.change, b.change) ||
        a.asin.localeCompare(b.asin) ||
        a.marketplace.localeCompare(b.marketplace),
    )
    .slice(0, limit);
}

const keywordKey = (asin: string, marketplace: string, keyword: string) =>
  `${asin}|${marketplace}|${keyword}`;

/** The ranks to store for the next digest: every tracked keyword of every keyword snapshot. */
export function keywordRanksOf(observations: readonly KeywordsObservation[]): LastDigest['keywordRanks'] {
  return observations.flatMap((o) =>
    o.ranks.map((r) => ({ asin: o.asin, marketplace: o.marketplace, keyword: r.keyword, rank: r.rank })),
  );
}

/**
 * Keyword ranks now (snapshots) against the ranks the last digest stored. Keywords the last
 * digest did not have are not compared (nothing to compare with), so a new book is not a mover.
 */
export function keywordMoves(
  observations: readonly KeywordsObservation[],
  previous: LastDigest | null,
): { tracked: number; movers: KeywordMove[]; entered: KeywordMove[]; left: KeywordMove[] } {
  const now = keywordRanksOf(observations);
  if (previous === null) return { tracked: now.length, movers: [], entered: [], left: [] };
  const before = new Map(
    previous.keywordRanks.map((r) => [keywordKey(r.asin, r.marketplace, r.keyword), r.rank]),
  );
  const threshold = Math.log10(KEYWORD_MOVER_FACTOR) - EPSILON;
  const movers: KeywordMove[] = [];
  const entered: KeywordMove[] = [];
  const left: KeywordMove[] = [];
  for (const r of now) {
    const key = keywordKey(r.asin, r.marketplace, r.keyword);
    if (!before.has(key)) continue;
    const old = before.get(key) ?? null;
    const move = { asin: r.asin, marketplace: r.marketplace, keyword: r.keyword, before: old, after: r.rank };
    if (old === null && r.rank !== null) entered.push({ ...move, change: null });
    else if (old !== null && r.rank === null) left.push({ ...move, change: null });
    else if (old !== null && r.rank !== null) {
      const change = logChange(old, r.rank);
      if (Math.abs(change) >= threshold && Math.abs(old - r.rank) >= KEYWORD_MIN_POSITIONS)
        movers.push({ ...move, change });
    }
  }
  movers.sort((a, b) => bySize(a.change, b.change) || a.keyword.localeCompare(b.keyword));
  entered.sort((a, b) => (a.after ?? 0) - (b.after ?? 0) || a.keyword.localeCompare(b.keyword));
  left.sort((a, b) => (a.before ?? 0) - (b.before ?? 0) || a.keyword.localeCompare(b.keyword));
  return { tracked: now.length, movers, entered, left };
}
