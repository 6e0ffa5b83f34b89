/**
 * Every Redis key of history, under the run's prefix:
 *
 *   <prefix>:hist:<ws>:<asin>:<marketplace>[:<yyyymmdd>]  a book's rank history (store.ts)
 *   <prefix>:hist:<ws>:<asin>:<marketplace>:series        its series names
 *   <prefix>:alertlog, <prefix>:alertlog:entries          the alert log (alert-log.ts)
 *   <prefix>:alertlog:asin:<asin>                         the alert log's index by book
 *
 * Stored data is read back by these exact strings: do not change them.
 */

import { keyPart } from '../util/redis-keys.ts';

export function historyBookKey(prefix: string, workspace: string, asin: string, marketplace: string): string {
  return `${prefix}:hist:${keyPart(workspace)}:${keyPart(asin)}:${keyPart(marketplace)}`;
}

/** The book's rank history of one UTC day (`dayMs` its midnight). */
export function historyDayKey(bookKey: string, dayMs: number): string {
  return `${bookKey}:${new Date(dayMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The book's series names. */
export function historySeriesKey(bookKey: string): string {
  return `${bookKey}:series`;
}

export function alertLogKeys(prefix: string): { index: string; entries: string } {
  return { index: `${prefix}:alertlog`, entries: `${prefix}:alertlog:entries` };
}

export function alertLogAsinKey(prefix: string, asin: string): string {
  return `${prefix}:alertlog:asin:${asin}`;
}
