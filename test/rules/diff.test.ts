import { describe, expect, it } from 'vitest';
import type { KeywordRank } from '../../src/model/observation.ts';
import { diffKeywords, pairKeywords } from '../../src/rules/diff.ts';
import { conditionsOf } from '../../src/rules/engine.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { HOUR, keywords, kinds, rule, run, T0 } from './helpers.ts';

const list = (ranks: Record<string, number | null>): KeywordRank[] =>
  Object.entries(ranks).map(([keyword, rank]) => ({ keyword, rank }));
/** Equal keywords in other string objects, as a decoded snapshot and a parsed answer hold them. */
const fresh = (ranks: KeywordRank[]): KeywordRank[] => JSON.parse(JSON.stringify(ranks));

describe('diffKeywords', () => {
  it('pairs by index when the order is the same, and reports only the ranks that changed', () => {
    const prev = list({ a: 1, b: 2, c: null, d: 4 });
    const next = fresh(list({ a: 1, b: 5, c: 3, d: 4 }));
    const diff = diffKeywords(prev, next);
    expect(diff).toMatchObject({ aligned: true, prevIndex: null });
    expect(diff.changes).toEqual([
      { type: 'rank_changed', keyword: 'b', index: 1, prevIndex: 1, before: 2, after: 5 },
      { type: 'rank_changed', keyword: 'c', index: 2, prevIndex: 2, before: null, after: 3 },
    ]);
    expect(diffKeywords(prev, prev).changes).toEqual([]);
  });

  it('pairs by name when the order changed, with keywords that appeared and left', () => {
    const prev = list({ a: 1, b: 2, c: 3, d: 4 });
    const next = list({ d: 4, e: 9, b: 7, a: 1 });
    const diff = diffKeywords(prev, next);
    expect(diff.aligned).toBe(false);
    expect([...diff.prevIndex!]).toEqual([3, -1, 1, 0]);
    expect(diff.changes).toEqual([
      { type: 'appeared', keyword: 'e', index: 1, rank: 9 },
      { type: 'rank_changed', keyword: 'b', index: 2, prevIndex: 1, before: 2, after: 7 },
      { type: 'left', keyword: 'c', prevIndex: 2, rank: 3 },
    ]);
  });

  it('pairs a keyword listed twice by its first occurrence, and lists each keyword that left once', () => {
    const prev = [
      ...list({ a: 1, b: 2 }),
      { keyword: 'a', rank: 8 },
      { keyword: 'x', rank: 5 },
      { keyword: 'x', rank: 6 },
    ];
    const next = list({ b: 2, a: 3 });
    expect(diffKeywords(prev, next).changes).toEqual([
      { type: 'rank_changed', keyword: 'a', index: 1, prevIndex: 0, before: 1, after: 3 },
      { type: 'left', keyword: 'x', prevIndex: 3, rank: 5 },
    ]);
    expect(pairKeywords(prev, [...next, { keyword: 'a', rank: 3 }]).prevIndex).toEqual(
      Int32Array.from([1, 0, 0]),
    );
  });

  it('a list that only grew or shrank at the end is not aligned', () => {
    expect(pairKeywords(list({ a: 1 }), list({ a: 1, b: 2 })).aligned).toBe(false);
    expect(pairKeywords(list({ a: 1, b: 2 }), list({ a: 1 })).aligned).toBe(false);
    expect(pairKeywords([], []).aligned).toBe(true);
  });
});

describe('keyword_rank_drop across list changes', () => {
  const drop = rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, sendResolved: true });

  it('keeps each keyword’s condition when the API reorders the list', () => {
    const { perPoll, state } = run(
      [drop],
      [
        keywords(T0, { a: 1, b: 2, c: 3 }),
        keywords(T0 + HOUR, { a: 20, b: 2, c: 3 }),
        keywords(T0 + 2 * HOUR, { c: 3, a: 21, b: 2 }),
        keywords(T0 + 3 * HOUR, { b: 30, c: 3, a: 1 }),
      ],
    );
    expect(perPoll.map(kinds)).toEqual([
      [],
      ['keyword_rank_drop'],
      [],
      ['keyword_rank_drop', 'keyword_rank_recovered'],
    ]);
    expect(perPoll[3]!.map((a) => factsOf(a).keyword)).toEqual(['b', 'a']);
    expect(conditionsOf(state!)['kw|B0CJ4XQ2ZK|US|b']).toMatchObject({ phase: 'firing', baseline: 2 });
  });

  it('a keyword added mid-list starts silently; one that left and came back starts afresh', () => {
    const { perPoll, state } = run(
      [drop],
      [
        keywords(T0, { a: 1, b: 2 }),
        keywords(T0 + HOUR, { a: 1, n: 90, b: 2 }),
        keywords(T0 + 2 * HOUR, { n: 93, b: 2 }),
        keywords(T0 + 3 * HOUR, { a: 50, n: 93, b: 2 }),
      ],
    );
    expect(perPoll.flat()).toEqual([]);
    expect(Object.keys(conditionsOf(state!)).sort()).toEqual([
      'kw|B0CJ4XQ2ZK|US|a',
      'kw|B0CJ4XQ2ZK|US|b',
      'kw|B0CJ4XQ2ZK|US|n',
    ]);
    expect(conditionsOf(state!)['kw|B0CJ4XQ2ZK|US|a']).toMatchObject({ phase: 'clear', baseline: 50 });
  });

  it('judges a keyword listed twice once, at its first occurrence, whatever the order', () => {
    const twice = (at: number, first: number, second: number, lead: boolean) => ({
      ...keywords(at, {}),
      ranks: [
        ...(lead ? [{ keyword: 'z', rank: 1 }] : []),
        { keyword: 'k', rank: first },
        { keyword: 'k', rank: second },
      ],
    });
    const { perPoll } = run(
      [drop],
      [twice(T0, 1, 1, false), twice(T0 + HOUR, 20, 1, false), twice(T0 + 2 * HOUR, 1, 30, true)],
    );
    expect(perPoll.map(kinds)).toEqual([[], ['keyword_rank_drop'], ['keyword_rank_recovered']]);
  });
});
