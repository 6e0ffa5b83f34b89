/**
 * Every Redis key of history, under the run's prefix:
 *
 *   <prefix>:hist:<ws>:<asin>:<marketplace>[:<yyyymmdd>]  a book's hourly rank history (store.ts)
 *   <prefix>:hist:<ws>:<asin>:<marketplace>:series        its series names
 *   <prefix>:hist:<ws>:<asin>:<marketplace>:m<yyyymm>     its daily summaries of a month (summary.ts)
 *   <prefix>:hist:<ws>:<asin>:<marketplace>:compacted     the last day summarised (summary.ts)
 *   <prefix>:hist:<ws>:<asin>:<marketplace>:s<yyyymm>     its sales days of a month (sales.ts)
 *   <prefix>:alertlog, <prefix>:alertlog:entries          the alert log (alert-log.ts)
 *   <prefix>:alertlog:asin:<asin>                         the alert log's index by book
 *
 * Stored data is read back by these exact strings: do not change them.
 */

import { type KeyPrefix, keyPart, prefixOf } from '../util/redis-keys.ts';

export function historyBookKey(
  prefix: KeyPrefix,
  workspace: string,
  asin: string,
  marketplace: string,
): string {
  return `${prefixOf(prefix, workspace)}:hist:${keyPart(workspace)}:${keyPart(asin)}:${keyPart(marketplace)}`;
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

/** The book's hourly rank history of one UTC day (`dayMs` its midnight). */
export function historyDayKey(bookKey: string, dayMs: number): string {
  return `${bookKey}:${ymd(dayMs)}`;
}

/** The book's series names. */
export function historySeriesKey(bookKey: string): string {
  return `${bookKey}:series`;
}

/** The string of one UTC month's daily summaries of a book. */
export function historyMonthKey(bookKey: string, monthMs: number): string {
  return `${bookKey}:m${ymd(monthMs).slice(0, 6)}`;
}

/** The last day of the book summarised (`yyyymmdd`). */
export function historyCompactedKey(bookKey: string): string {
  return `${bookKey}:compacted`;
}

/** The hash of one UTC month's sales days of a book. */
export function historySalesKey(bookKey: string, monthMs: number): string {
  return `${bookKey}:s${ymd(monthMs).slice(0, 6)}`;
}

export function alertLogKeys(prefix: string): { index: string; entries: string } {
  return { index: `${prefix}:alertlog`, entries: `${prefix}:alertlog:entries` };
}

export function alertLogAsinKey(prefix: string, asin: string): string {
  return `${prefix}:alertlog:asin:${asin}`;
}

/** SCAN patterns of every history key of a workspace: to move it to another shard. */
export function historyKeyPatterns(prefix: string, workspace: string): string[] {
  return [`${prefix}:hist:${keyPart(workspace)}:*`];
}
