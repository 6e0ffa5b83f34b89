import type { Observation } from '../model/observation.ts';
import { BSR_SERIES, compSeries, type HistoryPoints, type RedisHistoryStore } from './store.ts';

/**
 * What a committed poll adds to the history: every judged hour of a series poll, the hour a keyword
 * snapshot landed on, a book's BSR history and current rank, and its comps' ranks. Reviews and
 * sales are not hourly ranks (sales days are kept by `recordHistory` on their own).
 */
export function historyPointsOf(observations: readonly Observation[]): HistoryPoints[] {
  const bySeries = new Map<string, { at: number; rank: number | null }[]>();
  const add = (series: string, at: number, rank: number | null) => {
    const points = bySeries.get(series);
    if (points === undefined) bySeries.set(series, [{ at, rank }]);
    else points.push({ at, rank });
  };
  for (const observation of observations) {
    if (observation.kind === 'keywords') {
      for (const { keyword, rank } of observation.ranks) add(keyword, observation.observedAt, rank);
    } else if (observation.kind === 'book') {
      for (const point of observation.bsrHistory) add(BSR_SERIES, point.at, point.rank);
      add(BSR_SERIES, observation.observedAt, observation.bsr);
      for (const comp of observation.compTitles ?? [])
        add(compSeries(comp.asin), observation.observedAt, comp.bsr);
    }
  }
  return [...bySeries].map(([series, points]) => ({ series, points }));
}

/**
 * Records a committed poll's points, then summarises the book's days past the hourly window (the
 * workers' share of the downsampling: a few batches a poll); absent store (tests, tools): nothing kept.
 */
export async function recordHistory(
  store: RedisHistoryStore | undefined,
  workspace: string,
  observations: readonly Observation[],
  nowMs: number,
): Promise<void> {
  const first = observations[0];
  if (store === undefined || first === undefined) return;
  if (first.kind === 'sales') {
    await store.recordSales(
      workspace,
      observations.flatMap((o) => (o.kind === 'sales' ? o.days : [])),
      nowMs,
    );
    return;
  }
  if (first.kind !== 'keywords' && first.kind !== 'book') return;
  const book = { workspace, asin: first.asin, marketplace: first.marketplace };
  await store.record(book, historyPointsOf(observations), nowMs);
  await store.compact(book, nowMs);
}
