/**
 * Every Redis key of history, under the run's prefix:
 *
 *   <prefix>:hist:<ws>:<asin>:<marketplace>[:<yyyymmdd>]  a book's rank history (store.ts)
 *   <prefix>:alertlog, <prefix>:alertlog:entries          the alert log (alert-log.ts)
 *   <prefix>:alertlog:asin:<asin>                         the alert log's index by book
 *
 * Stored data is read back by these exact strings: do not change them.
 */

/** '%', ':', '{' and '}' as %XX: a ':' would make the key ambiguous, a brace a hash tag. */
const keyPart = (s: string) => s.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function historyBookKey(prefix: string, workspace: string, asin: string, marketplace: string): string {
  return `${prefix}:hist:${keyPart(workspace)}:${keyPart(asin)}:${keyPart(marketplace)}`;
}

export function alertLogKeys(prefix: string): { index: string; entries: string } {
  return { index: `${prefix}:alertlog`, entries: `${prefix}:alertlog:entries` };
}

export function alertLogAsinKey(prefix: string, asin: string): string {
  return `${prefix}:alertlog:asin:${asin}`;
}
