/**
 * What the book page draws its charts from: the history store of hourly ranks when it has the
 * book, else the stored snapshots (the book payload's hourly BSR points and the keywords' current
 * ranks). Pages only see this interface.
 */

import { BSR_SERIES, compOfSeries, type RedisHistoryStore } from '../history/store.ts';
import type {
  BookObservation,
  KeywordsObservation,
  Observation,
  RankPoint,
  ReviewsObservation,
} from '../model/observation.ts';
import { bookTargetId, keywordsTargetId, reviewsTargetId } from '../poll/targets.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

export interface BookKey {
  workspace: string;
  asin: string;
  marketplace: string;
}

export interface BookHistory {
  /** BSR points from `fromMs` to `toMs`, oldest first. */
  bsr(book: BookKey, fromMs: number, toMs: number): Promise<RankPoint[]>;
  /** Rank points per keyword from `fromMs` to `toMs`, oldest first; keywords in tracking order. */
  keywords(book: BookKey, fromMs: number, toMs: number): Promise<Map<string, RankPoint[]>>;
}

export class SnapshotBookHistory implements BookHistory {
  constructor(private readonly store: SnapshotStore) {}

  async bsr(book: BookKey, fromMs: number, toMs: number): Promise<RankPoint[]> {
    const observation = await bookSnapshot(this.store, book);
    if (observation === undefined) return [];
    const points = [...observation.bsrHistory];
    const last = points.at(-1);
    if (last === undefined || last.at < observation.observedAt)
      points.push({ at: observation.observedAt, rank: observation.bsr });
    return points.filter((p) => p.at >= fromMs && p.at <= toMs);
  }

  /** The snapshot keeps only the latest ranks: one point per keyword until the history store lands. */
  async keywords(book: BookKey, fromMs: number, toMs: number): Promise<Map<string, RankPoint[]>> {
    const observation = await keywordsSnapshot(this.store, book);
    const result = new Map<string, RankPoint[]>();
    if (observation === undefined) return result;
    const at = observation.observedAt;
    for (const { keyword, rank } of observation.ranks)
      result.set(keyword, at >= fromMs && at <= toMs ? [{ at, rank }] : []);
    return result;
  }
}

/**
 * The history store's hourly points (`src/history/store.ts`), falling back to the snapshot for a
 * book it holds nothing of yet (polled before the store existed): one read serves both series.
 */
export class StoredBookHistory implements BookHistory {
  private readonly fallback: SnapshotBookHistory;

  constructor(
    private readonly history: RedisHistoryStore,
    store: SnapshotStore,
  ) {
    this.fallback = new SnapshotBookHistory(store);
  }

  async bsr(book: BookKey, fromMs: number, toMs: number): Promise<RankPoint[]> {
    const points = (await this.history.read(book, fromMs, toMs)).get(BSR_SERIES) ?? [];
    return points.length > 0 ? points : this.fallback.bsr(book, fromMs, toMs);
  }

  async keywords(book: BookKey, fromMs: number, toMs: number): Promise<Map<string, RankPoint[]>> {
    const series = await this.history.read(book, fromMs, toMs);
    // BSR and the comps' ranks are series of the book's own (named with a leading NUL), not keywords.
    for (const name of series.keys())
      if (name === BSR_SERIES || compOfSeries(name) !== undefined) series.delete(name);
    if (series.size === 0) return this.fallback.keywords(book, fromMs, toMs);
    // Tracking order comes from the snapshot; keywords no longer tracked keep their history after.
    const ordered = new Map<string, RankPoint[]>();
    for (const keyword of (await this.fallback.keywords(book, fromMs, toMs)).keys())
      ordered.set(keyword, series.get(keyword) ?? []);
    for (const [keyword, points] of series) if (!ordered.has(keyword)) ordered.set(keyword, points);
    return ordered;
  }
}

/** The last stored observation of one of the book's targets, or undefined before its first poll. */
async function stored<K extends 'book' | 'keywords'>(
  store: SnapshotStore,
  book: BookKey,
  kind: K,
): Promise<Extract<Observation, { kind: K }> | undefined> {
  const id = (kind === 'book' ? bookTargetId : keywordsTargetId)(book.asin, book.marketplace);
  const found = await store.get({ workspace: book.workspace, kind, id });
  const observation = found?.observation;
  return observation?.kind === kind ? (observation as Extract<Observation, { kind: K }>) : undefined;
}

/** Title, author and BSR now. */
export function bookSnapshot(store: SnapshotStore, book: BookKey): Promise<BookObservation | undefined> {
  return stored(store, book, 'book');
}

export function keywordsSnapshot(
  store: SnapshotStore,
  book: BookKey,
): Promise<KeywordsObservation | undefined> {
  return stored(store, book, 'keywords');
}

/** Reviews of the book across the workspace's review campaigns (stored summaries: no text is kept). */
export async function bookReviews(
  store: SnapshotStore,
  workspace: string,
  campaignIds: readonly string[],
  asin: string,
) {
  const reviews: ReviewsObservation['reviews'] = [];
  for (const id of campaignIds) {
    const stored = await store.get({ workspace, kind: 'reviews', id: reviewsTargetId(id) });
    if (stored?.observation.kind === 'reviews')
      reviews.push(...stored.observation.reviews.filter((r) => r.asin === asin));
  }
  return reviews.sort((a, b) => b.publishedAt - a.publishedAt);
}
