import { describe, expect, it } from 'vitest';
import type { KeywordsObservation, Observation } from '../../src/model/observation.ts';
import { inStoredOrder } from '../../src/rules/keyword-order.ts';

const kw = (pairs: [string, number | null][], at = 1): KeywordsObservation => ({
  kind: 'keywords',
  observedAt: at,
  asin: 'B0CJ4XQ2ZK',
  marketplace: 'US',
  ranks: pairs.map(([keyword, rank]) => ({ keyword, rank })),
});

describe('inStoredOrder', () => {
  it('returns an answer in the stored order, a first poll and other kinds as they are', () => {
    const stored = kw([
      ['a', 1],
      ['b', 2],
    ]);
    const same = kw(
      [
        ['a', 3],
        ['b', 4],
      ],
      2,
    );
    expect(inStoredOrder(stored, same)).toBe(same);
    expect(inStoredOrder(undefined, same)).toBe(same);
    const book: Observation = {
      kind: 'book',
      observedAt: 2,
      asin: 'B0CJ4XQ2ZK',
      marketplace: 'US',
      bsr: [],
      reviewCount: 3,
      rating: null,
    } as unknown as Observation; // only `kind` is read for other kinds
    expect(inStoredOrder(stored, book)).toBe(book);
  });

  it('puts a reshuffled answer back in the stored order, new keywords after in answer order, gone ones out', () => {
    const stored = kw([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const answer = kw(
      [
        ['x', 7],
        ['c', 1],
        ['a', 9],
        ['w', 8],
      ],
      2,
    );
    const ordered = inStoredOrder(stored, answer);
    expect(ordered).toEqual({
      ...answer,
      ranks: [
        { keyword: 'a', rank: 9 },
        { keyword: 'c', rank: 1 },
        { keyword: 'x', rank: 7 },
        { keyword: 'w', rank: 8 },
      ],
    });
    // The answer itself is not changed.
    expect(answer.ranks.map((r) => r.keyword)).toEqual(['x', 'c', 'a', 'w']);
  });

  it('keeps duplicates of one keyword in the answer order (the first one is the one judged)', () => {
    const stored = kw([
      ['b', 1],
      ['a', 2],
    ]);
    const answer = kw([
      ['a', 5],
      ['b', 1],
      ['a', 9],
    ]);
    expect(inStoredOrder(stored, answer)).toMatchObject({
      ranks: [
        { keyword: 'b', rank: 1 },
        { keyword: 'a', rank: 5 },
        { keyword: 'a', rank: 9 },
      ],
    });
  });
});
