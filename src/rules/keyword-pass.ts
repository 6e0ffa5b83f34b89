import type { KeywordsObservation } from '../model/observation.ts';
import { findRepeats, type KeywordState } from '../rule-state/keyword-state.ts';
import { pairKeywords } from './diff.ts';

/**
 * What every keyword rule of one evaluation shares: where each keyword of `next` finds its stored
 * conditions, which entries repeat an earlier keyword, and the state being built for `next`.
 */
export interface KeywordPass {
  /** The stored columns, when they may be used (there is a `prev`, and it is the same book and marketplace). */
  before: KeywordState | undefined;
  /** For each `next` index, its index in `before` (-1: none); null when the two are aligned (i is i). */
  toBefore: Int32Array | null;
  /** `repeatOf` of `next` (see `KeywordState`). */
  repeatOf: Int32Array | null;
  after: KeywordState;
}

/**
 * Pairs `next` with the stored columns. The columns are aligned with the observation they were
 * committed with, which is `prev` in the poller; pairing against the columns' own keyword list
 * (rather than `prev`'s) keeps the lookup right even for a state handed in with another observation.
 * A state for another book or marketplace is no state, as its keys never matched before.
 */
export function openKeywordPass(
  stored: KeywordState | undefined,
  prev: KeywordsObservation | undefined,
  next: KeywordsObservation,
): KeywordPass {
  const before =
    prev !== undefined &&
    stored !== undefined &&
    stored.asin === next.asin &&
    stored.marketplace === next.marketplace
      ? stored
      : undefined;
  let toBefore: Int32Array | null = null;
  let repeatOf: Int32Array | null;
  if (before === undefined) {
    repeatOf = findRepeats(next.ranks);
  } else {
    const pairing = pairKeywords(before.ranks, next.ranks);
    toBefore = pairing.prevIndex;
    // Same keywords in the same order: the same repeats, no need to hash the keywords again.
    repeatOf = pairing.aligned ? before.repeatOf : findRepeats(next.ranks);
  }
  const after: KeywordState = {
    asin: next.asin,
    marketplace: next.marketplace,
    ranks: next.ranks,
    repeatOf,
    rules: new Map(),
  };
  return { before, toBefore, repeatOf, after };
}
