/**
 * Reading a `/v1/rankings` answer into hourly keyword observations. The one place that knows the
 * series' shape (so it can move behind the API contract's accessors in one step), and pure: the same
 * answer, request and poll time always read the same, or fail the same.
 *
 * Bad input is an error outcome (the poll fails, the baseline stays, source health counts it) when
 * reading it any other way could invent a drop or a recovery: points out of order or repeating an
 * hour, a point in the future or not on the hour, a gap inside a series, series that disagree on the
 * hours they cover, an ASIN or keyword that was not asked for, or the same keyword twice. It is read
 * deterministically when nothing can be invented: a series of another marketplace (the endpoint has
 * no marketplace filter) is not this target's; a tracked keyword with no series is unranked every
 * hour (as in a snapshot, it is not in the book's keyword list); hours the API no longer has are
 * counted as unreadable; a trailing `null` younger than `SETTLE_MS` is not judged yet, as the
 * contract lets it gain a rank later.
 */
import type { RankingSeries } from '../api/index.ts';
import type { KeywordsObservation } from '../model/observation.ts';
import { HOUR_MS } from '../util/time-units.ts';

/** A null point this recent may still be revised to a rank: its hour waits for a later poll. */
export const SETTLE_MS = 2 * HOUR_MS;

export interface SeriesRequest {
  asin: string;
  marketplace: string;
  keywords: readonly string[];
  /** The first hour wanted (the hour after the last judged one). */
  fromMs: number;
  /** The poll's time: points after its hour are in the future. */
  nowMs: number;
}

export interface SeriesReading {
  /** One observation per hour, oldest first, `observedAt` = the hour. Empty: nothing new to judge. */
  hours: KeywordsObservation[];
  /** Hours from `fromMs` the answer did not cover before its first point (gone from the API). */
  unreadableHours: number;
  /** The answer held no series of this book at all. */
  empty: boolean;
}

/** An answer that cannot be read without inventing changes: the poll fails, nothing is judged. */
export class RankingSeriesError extends Error {
  override readonly name = 'RankingSeriesError';
}

export function readRankingSeries(items: readonly RankingSeries[], request: SeriesRequest): SeriesReading {
  const wanted = new Set(request.keywords);
  const nowHour = Math.floor(request.nowMs / HOUR_MS) * HOUR_MS;
  const byKeyword = new Map<string, (number | null)[]>();
  let first: number | undefined;
  let last: number | undefined;
  for (const item of items) {
    if (item.asin !== request.asin) {
      throw new RankingSeriesError(`series of ${item.asin.slice(0, 20)}, asked for ${request.asin}`);
    }
    if (item.marketplace !== request.marketplace) continue;
    if (!wanted.has(item.keyword))
      throw new RankingSeriesError('a series of a keyword that was not asked for');
    if (byKeyword.has(item.keyword)) throw new RankingSeriesError('the same keyword twice in one answer');
    const hours = item.points.map((p) => Date.parse(p.at));
    checkHours(hours, nowHour);
    const start = hours[0];
    const end = hours[hours.length - 1];
    if (start !== undefined && end !== undefined) {
      if (start < request.fromMs) throw new RankingSeriesError('a point before the hours asked for');
      if ((first !== undefined && first !== start) || (last !== undefined && last !== end)) {
        throw new RankingSeriesError('series of one answer disagree on the hours they cover');
      }
      first = start;
      last = end;
    } else if (first !== undefined) {
      throw new RankingSeriesError('series of one answer disagree on the hours they cover');
    }
    byKeyword.set(
      item.keyword,
      item.points.map((p) => p.rank),
    );
  }
  if (first === undefined || last === undefined) {
    return { hours: [], unreadableHours: 0, empty: byKeyword.size === 0 };
  }
  const horizon = settledHorizon(byKeyword, first, last, request.nowMs);
  const hours: KeywordsObservation[] = [];
  for (let at = first, i = 0; at <= horizon; at += HOUR_MS, i++) {
    hours.push({
      kind: 'keywords',
      observedAt: at,
      asin: request.asin,
      marketplace: request.marketplace,
      ranks: request.keywords.map((keyword) => ({ keyword, rank: byKeyword.get(keyword)?.[i] ?? null })),
    });
  }
  return { hours, unreadableHours: Math.max(0, (first - request.fromMs) / HOUR_MS), empty: false };
}

function checkHours(hours: readonly number[], nowHour: number): void {
  for (let i = 0; i < hours.length; i++) {
    const at = hours[i]!;
    if (!Number.isFinite(at) || at % HOUR_MS !== 0) throw new RankingSeriesError('a point not on the hour');
    if (at > nowHour) throw new RankingSeriesError('a point in the future');
    if (i === 0) continue;
    const step = at - hours[i - 1]!;
    if (step <= 0) throw new RankingSeriesError('points out of order or repeating an hour');
    if (step !== HOUR_MS) throw new RankingSeriesError('a gap inside a series');
  }
}

/** The last hour every series has settled: before the first trailing null still open to revision. */
function settledHorizon(
  byKeyword: ReadonlyMap<string, readonly (number | null)[]>,
  first: number,
  last: number,
  nowMs: number,
): number {
  let horizon = last;
  for (const ranks of byKeyword.values()) {
    for (let i = ranks.length - 1; i >= 0 && ranks[i] === null; i--) {
      const at = first + i * HOUR_MS;
      if (nowMs - at < SETTLE_MS) horizon = Math.min(horizon, at - HOUR_MS);
    }
  }
  return horizon;
}
