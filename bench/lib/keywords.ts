/**
 * Deterministic keyword data for the benchmarks: book keyword lists, rank walks between snapshots
 * and the API payloads they would arrive in. Seeded, so every run measures the same data.
 */
import type { KeywordsObservation } from '../../src/model/observation.ts';
import { seededRandom } from '../../src/sim/prng.ts';

const WORDS = (
  'cozy mystery romance fantasy thriller dragon witch small town cat detective bakery murder ' +
  'enemies to lovers slow burn second chance billionaire paranormal shifter vampire academy ' +
  'space opera military science fiction dystopian epic sword sorcery historical regency duke ' +
  'christmas holiday beach read book club psychological suspense police procedural kindle ' +
  'unlimited free books for women men kids young adult series box set novel short stories ' +
  'über café señor naïve 東京 ミステリー'
).split(' ');

export const BASE_TIME_MS = 1_790_000_000_000;
/** Positions past this are unranked, as in the simulator. */
export const RANKED_DEPTH = 200;

/** A book's usual ranks (`base`) and its latest snapshot of the walk. */
export interface BookSeries {
  asin: string;
  base: KeywordsObservation;
  latest: KeywordsObservation;
}

/** A 10-character ASIN for book `n`. */
export function benchAsin(n: number): string {
  return `B0B${String(n).padStart(7, '0')}`;
}

/**
 * Keywords of 8–30 characters, as a search-term list looks; ranks 1..300 with ~10% unranked.
 * `asin` defaults to the one snapshot-bytes has always used, and the draws are the ones it has
 * always made, so its numbers stay comparable across versions.
 */
export function keywordList(seed: number, count = 1000, asin?: string): KeywordsObservation {
  const rand = seededRandom(seed);
  const seen = new Set<string>();
  const ranks: KeywordsObservation['ranks'] = [];
  while (ranks.length < count) {
    let k = WORDS[Math.floor(rand() * WORDS.length)]!;
    const target = 8 + Math.floor(rand() * 23);
    while (k.length < target) k += ` ${WORDS[Math.floor(rand() * WORDS.length)]!}`;
    k = k.slice(0, 30).trim();
    if (k.length < 8 || seen.has(k)) continue;
    seen.add(k);
    ranks.push({ keyword: k, rank: rand() < 0.1 ? null : 1 + Math.floor(rand() * 300) });
  }
  return {
    kind: 'keywords',
    observedAt: BASE_TIME_MS,
    asin: asin ?? `B0BENCH${String(seed).padStart(3, '0')}`,
    marketplace: 'US',
    ranks,
  };
}

/** Every rank drawn afresh (snapshot-bytes' worst case for the encoding: nothing repeats). */
export function rerank(o: KeywordsObservation, seed: number): KeywordsObservation {
  const rand = seededRandom(seed);
  return {
    ...o,
    observedAt: o.observedAt + seed * 3_600_000,
    ranks: o.ranks.map((r) => ({
      keyword: r.keyword,
      rank: rand() < 0.1 ? null : 1 + Math.floor(rand() * 300),
    })),
  };
}

/**
 * The next hourly snapshot of a rank walk, the way keyword ranks move: a third stay put, most
 * move a place (pulled back towards the book's usual rank), ~2% jump (mostly falling 1.5–4×),
 * ~0.5% drop out of the ranking and come back later; keywords whose usual rank is past the
 * ranked depth now and then show at the bottom and drop out again. Enough moves breach the
 * default rule (5 positions, leaving the top 10, unranked) that it raises ~1% of keywords as
 * alerts a poll, and keeps conditions pending and firing across polls.
 */
export function nextSnapshot(
  base: KeywordsObservation,
  prev: KeywordsObservation,
  seed: number,
): KeywordsObservation {
  const rand = seededRandom(seed);
  const ranks = prev.ranks.map((r, i) => {
    const usual = base.ranks[i]?.rank ?? null;
    const u = rand();
    let rank: number | null;
    if (usual === null || usual > RANKED_DEPTH) {
      // The unranked tail: now and then a keyword shows at the bottom, and soon drops out again.
      rank =
        r.rank === null
          ? u < 0.02
            ? RANKED_DEPTH - Math.floor(rand() * 30)
            : null
          : u < 0.5
            ? r.rank
            : null;
    } else if (r.rank === null) {
      rank = u < 0.3 ? usual : null;
    } else if (u < 0.35) {
      rank = r.rank;
    } else if (u < 0.97) {
      const pull = Math.round((usual - r.rank) * 0.25);
      rank = r.rank + pull + Math.floor(rand() * 3) - 1;
    } else if (u < 0.99) {
      rank = rand() < 0.7 ? Math.round(r.rank * (1.5 + rand() * 2.5)) + 5 : Math.round(r.rank / 2);
    } else if (u < 0.995) {
      rank = null;
    } else {
      rank = usual;
    }
    if (rank !== null) rank = rank > RANKED_DEPTH ? null : Math.max(1, rank);
    return { keyword: r.keyword, rank };
  });
  return { ...prev, observedAt: prev.observedAt + 3_600_000, ranks };
}

/** The body of `GET /v1/books/{asin}/keywords` that would carry this observation. */
export function keywordsPayload(o: KeywordsObservation): string {
  const n = o.ranks.length;
  return JSON.stringify({
    asin: o.asin,
    data: o.ranks.map((r, i) => ({
      keyword: r.keyword,
      rank: r.rank,
      search_volume: Math.round(90_000 / (i + 1) ** 0.9) + 10,
      traffic_share: Math.round((0.95 / n) * 1e6) / 1e6,
    })),
  });
}

/** Keyword strings once + 4 bytes a rank: what a snapshot cannot go below without compression. */
export function packedBound(o: KeywordsObservation): number {
  return o.ranks.reduce((n, r) => n + Buffer.byteLength(r.keyword) + 4, 0);
}
