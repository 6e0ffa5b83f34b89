/**
 * What the book page draws its charts from: the history store's tiered ranks when it has the
 * book, else the stored snapshots (the book payload's hourly BSR points and the keywords' current
 * ranks). Pages only see this interface.
 */

import { BSR_SERIES, compOfSeries, type RedisHistoryStore, type SeriesHistory } from '../history/store.ts';
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

/** A book's rank series over a range: BSR, each keyword (in tracking order) and each comp by ASIN. */
export interface BookRanks {
  bsr: SeriesHistory;
  keywords: Map<string, SeriesHistory>;
  comps: Map<string, SeriesHistory>;
}

export interface BookHistory {
  /** Every series of the book from `fromMs` to `toMs`, points oldest first, in one read. */
  ranks(book: BookKey, fromMs: number, toMs: number): Promise<BookRanks>;
}

const only = (points: RankPoint[]): SeriesHistory => ({ points, days: [] });

export class SnapshotBookHistory implements BookHistory {
  constructor(private readonly store: SnapshotStore) {}

  async ranks(book: BookKey, fromMs: number, toMs: number): Promise<BookRanks> {
    return {
      bsr: only(await this.bsr(book, fromMs, toMs)),
      keywords: await this.keywords(book, fromMs, toMs),
      comps: new Map(),
    };
  }

  private async bsr(book: BookKey, fromMs: number, toMs: number): Promise<RankPoint[]> {
    const observation = await bookSnapshot(this.store, book);
    if (observation === undefined) return [];
    const points = [...observation.bsrHistory];
    const last = points.at(-1);
    if (last === undefined || last.at < observation.observedAt)
      points.push({ at: observation.observedAt, rank: observation.bsr });
    return points.filter((p) => p.at >= fromMs && p.at <= toMs);
  }

  /** The snapshot keeps only the latest ranks: one point per keyword. */
  async keywords(book: BookKey, fromMs: number, toMs: number): Promise<Map<string, SeriesHistory>> {
    const observation = await keywordsSnapshot(this.store, book);
    const result = new Map<string, SeriesHistory>();
    if (observation === undefined) return result;
    const at = observation.observedAt;
    for (const { keyword, rank } of observation.ranks)
      result.set(keyword, only(at >= fromMs && at <= toMs ? [{ at, rank }] : []));
    return result;
  }
}

/**
 * The history store's tiered points (`src/history/store.ts`), falling back to the snapshot for a
 * book it holds nothing of yet (polled before the store existed).
 */
export class StoredBookHistory implements BookHistory {
  private readonly fallback: SnapshotBookHistory;

  constructor(
    private readonly history: RedisHistoryStore,
    store: SnapshotStore,
  ) {
    this.fallback = new SnapshotBookHistory(store);
  }

  async ranks(book: BookKey, fromMs: number, toMs: number): Promise<BookRanks> {
    const [series, snapshot] = await Promise.all([
      this.history.readTiered(book, fromMs, toMs),
      this.fallback.ranks(book, fromMs, toMs),
    ]);
    const stored = series.get(BSR_SERIES);
    const bsr = stored !== undefined && stored.points.length > 0 ? stored : snapshot.bsr;
    const comps = new Map<string, SeriesHistory>();
    const rest = new Map<string, SeriesHistory>();
    for (const [name, history] of series) {
      const comp = compOfSeries(name);
      if (comp !== undefined) comps.set(comp, history);
      else if (name !== BSR_SERIES) rest.set(name, history);
    }
    if (rest.size === 0) return { bsr, keywords: snapshot.keywords, comps };
    // Tracking order comes from the snapshot; keywords no longer tracked keep their history after.
    const keywords = new Map<string, SeriesHistory>();
    for (const keyword of snapshot.keywords.keys()) keywords.set(keyword, rest.get(keyword) ?? only([]));
    for (const [keyword, history] of rest) if (!keywords.has(keyword)) keywords.set(keyword, history);
    return { bsr, keywords, comps };
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
