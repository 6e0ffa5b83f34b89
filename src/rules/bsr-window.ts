/**
 * The rolling window of best-seller ranks the BSR rules judge against (`bsr.ts`): the hourly
 * history an observation carries, read back from its end.
 */
import type { BookObservation } from '../model/observation.ts';
import { HOUR_MS } from '../util/time-units.ts';

/** Non-null ranks of `history` in the `hours` up to `until`, oldest first. Walks back from the end. */
export function recentRanks(book: BookObservation, hours: number, until = book.observedAt): number[] {
  const from = until - hours * HOUR_MS;
  const out: number[] = [];
  for (let i = book.bsrHistory.length - 1; i >= 0; i--) {
    const point = book.bsrHistory[i];
    if (point === undefined || point.at <= from) break;
    if (point.at <= until && point.rank !== null) out.push(point.rank);
  }
  return out.reverse();
}
