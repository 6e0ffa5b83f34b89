/**
 * The titles (and authors) of the books a keyword, sales or review poll is about, read from the latest
 * book snapshots of the same workspace, so its alerts name the book people know instead of an
 * ASIN. Costs no API request for a watched book (one never polled yet is simply not named); the
 * book of a campaign that is not watched is looked up once and cached (title-cache.ts).
 */
import { type AnalyticsClient, MARKETPLACES } from '../api/index.ts';
import type { Observation } from '../model/observation.ts';
import type { Logger } from '../ops/logger.ts';
import type { BookName } from '../rules/scope.ts';
import type { SnapshotStore, StoredTarget } from '../snapshot/store.ts';
import type { TargetRegistry } from './registry.ts';
import { bookTargetId, type WatchTarget } from './targets.ts';
import type { TitleCache } from './title-cache.ts';

export interface BookNameDeps {
  store: SnapshotStore;
  registry: TargetRegistry;
  /** Absent: books that are not watched stay named by their ASIN. */
  titles?: TitleCache | undefined;
  clientFor(workspace: string): AnalyticsClient;
  logger: Logger;
}

export async function bookNames(
  deps: BookNameDeps,
  workspace: string,
  target: WatchTarget,
  observation: Observation | undefined,
  signal: AbortSignal,
): Promise<Map<string, BookName>> {
  const names = new Map<string, BookName>();
  const read = async (asin: string, marketplace: string): Promise<BookName | undefined> => {
    const target = deps.registry.target(workspace, bookTargetId(asin, marketplace));
    if (target === undefined) return undefined;
    const stored = await deps.store.get(target.ref);
    const book = stored?.observation;
    return book?.kind === 'book' ? { title: book.title, author: book.author } : undefined;
  };
  if (target.kind === 'keywords') {
    const book = await read(target.asin, target.marketplace);
    if (book !== undefined) names.set(`${target.asin}|${target.marketplace}`, book);
  } else if (observation?.kind === 'sales') {
    // Sales alerts name their books too: each watched book of the answer, one snapshot read each.
    const pairs = new Set(observation.days.map((d) => `${d.asin}|${d.marketplace}`));
    for (const pair of pairs) {
      const [asin = '', marketplace = ''] = pair.split('|');
      const book = await read(asin, marketplace);
      if (book !== undefined) names.set(pair, book);
    }
  } else if (observation?.kind === 'reviews') {
    // Reviews name no marketplace: the first configured marketplace with a snapshot names the book.
    const asins = new Set(observation.reviews.map((r) => r.asin));
    for (const asin of asins) {
      for (const marketplace of MARKETPLACES) {
        const book = await read(asin, marketplace);
        if (book === undefined) continue;
        names.set(asin, book);
        break;
      }
      // Not watched (no book target in any marketplace): the API names it once, then the cache.
      if (names.has(asin) || deps.titles === undefined || isWatched(deps, workspace, asin)) continue;
      const client = deps.clientFor(workspace);
      const book = await deps.titles.lookUp({ client, logger: deps.logger, signal }, workspace, asin);
      if (book !== undefined) names.set(asin, book);
    }
  }
  return names;
}

/** A watched book is named by its snapshot once polled: no lookup is spent on it meanwhile. */
function isWatched(deps: BookNameDeps, workspace: string, asin: string): boolean {
  return MARKETPLACES.some((mp) => deps.registry.target(workspace, bookTargetId(asin, mp)) !== undefined);
}

/** The title of the book a book or keywords target is about (its own snapshot, or its book's). */
export async function targetBookName(
  deps: Pick<BookNameDeps, 'store' | 'registry'>,
  workspace: string,
  target: WatchTarget,
  stored: StoredTarget | undefined,
): Promise<Map<string, BookName>> {
  const names = new Map<string, BookName>();
  if (target.kind !== 'book' && target.kind !== 'keywords') return names;
  let book = stored?.observation;
  if (target.kind === 'keywords') {
    const bookTarget = deps.registry.target(workspace, bookTargetId(target.asin, target.marketplace));
    book = bookTarget === undefined ? undefined : (await deps.store.get(bookTarget.ref))?.observation;
  }
  if (book?.kind === 'book')
    names.set(`${target.asin}|${target.marketplace}`, { title: book.title, author: book.author });
  return names;
}
