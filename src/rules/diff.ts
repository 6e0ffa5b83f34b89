import type { KeywordRank } from '../model/observation.ts';

/**
 * The diff step between two keyword lists: which entry of `prev` each entry of `next` is, and what
 * changed. Rules get the pairing (the keyword rule reads its stored columns through it); the change
 * events are for anyone who wants to know what moved.
 *
 * A keyword list is the book's top keywords in the API's order, and that order is stable from poll
 * to poll while the ranks move. So the usual case costs one pass of string comparisons by index and
 * no hashing at all; only when the lists differ (a keyword came or went, the order changed) are
 * keywords paired by name. A keyword listed twice is paired by its first occurrence.
 */

export interface KeywordPairing {
  /** `next` lists the same keywords as `prev` in the same order: entry i is entry i. */
  aligned: boolean;
  /** When not aligned: for each `next` index, the `prev` index of the same keyword, -1 when new. */
  prevIndex: Int32Array | null;
}

export type KeywordChange =
  | {
      type: 'rank_changed';
      keyword: string;
      index: number;
      prevIndex: number;
      before: number | null;
      after: number | null;
    }
  | { type: 'appeared'; keyword: string; index: number; rank: number | null }
  | { type: 'left'; keyword: string; prevIndex: number; rank: number | null };

export interface KeywordDiff extends KeywordPairing {
  /** In `next` order, then the keywords that left in `prev` order. */
  changes: KeywordChange[];
}

const ALIGNED: KeywordPairing = Object.freeze({ aligned: true, prevIndex: null });

function sameOrder(prev: readonly KeywordRank[], next: readonly KeywordRank[]): boolean {
  if (prev === next) return true;
  const n = next.length;
  if (prev.length !== n) return false;
  for (let i = 0; i < n; i++) if (prev[i]!.keyword !== next[i]!.keyword) return false;
  return true;
}

/** Keyword → index of its first occurrence. */
function firstIndexes(ranks: readonly KeywordRank[]): Map<string, number> {
  const first = new Map<string, number>();
  for (let j = 0; j < ranks.length; j++) {
    const keyword = ranks[j]!.keyword;
    if (!first.has(keyword)) first.set(keyword, j);
  }
  return first;
}

function byName(first: Map<string, number>, next: readonly KeywordRank[]): Int32Array {
  const prevIndex = new Int32Array(next.length);
  for (let i = 0; i < next.length; i++) prevIndex[i] = first.get(next[i]!.keyword) ?? -1;
  return prevIndex;
}

/** The changes of two lists in the same order, in one pass; null as soon as a keyword differs. */
function byIndex(prev: readonly KeywordRank[], next: readonly KeywordRank[]): KeywordChange[] | null {
  const n = next.length;
  if (prev.length !== n) return null;
  const changes: KeywordChange[] = [];
  for (let i = 0; i < n; i++) {
    const a = prev[i]!;
    const b = next[i]!;
    if (a.keyword !== b.keyword) return null;
    if (a.rank !== b.rank) {
      changes.push({
        type: 'rank_changed',
        keyword: b.keyword,
        index: i,
        prevIndex: i,
        before: a.rank,
        after: b.rank,
      });
    }
  }
  return changes;
}

export function pairKeywords(prev: readonly KeywordRank[], next: readonly KeywordRank[]): KeywordPairing {
  if (sameOrder(prev, next)) return ALIGNED;
  return { aligned: false, prevIndex: byName(firstIndexes(prev), next) };
}

export function diffKeywords(prev: readonly KeywordRank[], next: readonly KeywordRank[]): KeywordDiff {
  const aligned = byIndex(prev, next);
  if (aligned !== null) return { aligned: true, prevIndex: null, changes: aligned };
  const changes: KeywordChange[] = [];
  const first = firstIndexes(prev);
  const prevIndex = byName(first, next);
  const matched = new Uint8Array(prev.length);
  for (let i = 0; i < next.length; i++) {
    const p = prevIndex[i]!;
    const { keyword, rank } = next[i]!;
    if (p < 0) {
      changes.push({ type: 'appeared', keyword, index: i, rank });
      continue;
    }
    matched[p] = 1;
    const before = prev[p]!.rank;
    if (before !== rank)
      changes.push({ type: 'rank_changed', keyword, index: i, prevIndex: p, before, after: rank });
  }
  for (let j = 0; j < prev.length; j++) {
    const { keyword, rank } = prev[j]!;
    if (matched[j] === 0 && first.get(keyword) === j)
      changes.push({ type: 'left', keyword, prevIndex: j, rank });
  }
  return { aligned: false, prevIndex, changes };
}
