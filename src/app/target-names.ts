/**
 * What people call targets and books on the pages and tables that list them (status, plan,
 * silences): titles from the book snapshots (Redis only, no API request), campaign names from the config.
 */
import type { ShelfwatchConfig } from '../config/schema.ts';
import type { ConfigTargetRegistry } from '../poll/registry.ts';
import type { WatchTarget } from '../poll/targets.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

/**
 * What people call each target, by target id: a book's title (its book and keywords targets, from
 * the book snapshots: Redis only, pipelined) or a campaign's configured name. Status and plan read it.
 */
export async function targetNames(
  store: Pick<SnapshotStore, 'get'>,
  targets: readonly WatchTarget[],
): Promise<Map<string, string>> {
  const books = targets.filter((t): t is Extract<WatchTarget, { kind: 'book' }> => t.kind === 'book');
  const stored = await Promise.all(books.map((t) => store.get(t.ref).catch(() => undefined)));
  const titles = new Map<string, string>();
  books.forEach((target, i) => {
    const observation = stored[i]?.observation;
    if (observation?.kind === 'book') titles.set(`${target.asin}|${target.marketplace}`, observation.title);
  });
  const names = new Map<string, string>();
  for (const target of targets) {
    const name =
      target.kind === 'reviews'
        ? target.campaignName
        : target.kind === 'sales'
          ? undefined
          : titles.get(`${target.asin}|${target.marketplace}`);
    if (name !== undefined) names.set(target.ref.id, name);
  }
  return names;
}

/** Book titles by ASIN over every workspace (the first snapshot that names it), for silences. */
export async function bookTitlesByAsin(runtime: {
  store: Pick<SnapshotStore, 'get'>;
  registry: Pick<ConfigTargetRegistry, 'all'>;
  config: Pick<ShelfwatchConfig, 'workspaces'>;
}): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  for (const ws of runtime.config.workspaces) {
    const targets = runtime.registry.all(ws.id).filter((t) => t.kind === 'book');
    for (const [id, title] of await targetNames(runtime.store, targets)) {
      const asin = id.split('/')[1];
      if (asin !== undefined && !titles.has(asin)) titles.set(asin, title);
    }
  }
  return titles;
}
