/**
 * Keeping what can be read of a stored rule state (issue #11 item 6): the poller judges with fresh
 * conditions only for what was lost. And the missing reviews of version 2 survive their bytes.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeRuleState,
  encodeRuleState,
  RuleStateDecodeError,
  salvageRuleState,
} from '../../src/rule-state/index.ts';
import { conditionsOf, type RuleState } from '../../src/rules/engine.ts';
import { HOUR, keywords, review, reviews, rule, run, T0 } from './helpers.ts';

const kw = rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, sendResolved: true });
const bsrRule = rule({ id: 'b', kind: 'bsr_worsened' });
const polls = [
  keywords(T0, { 'cozy mystery': 4, cat: 9 }),
  keywords(T0 + HOUR, { 'cozy mystery': 20, cat: 9 }),
];

function sealed(body: Buffer): Buffer {
  const sum = Buffer.alloc(4);
  sum.writeUInt32LE(crc32(body));
  return Buffer.concat([body, sum]);
}

describe('salvageRuleState', () => {
  it('reads a whole state like decodeRuleState and reports nothing lost', () => {
    const { state, last } = run([kw], polls);
    const bytes = encodeRuleState(state!, last!);
    expect(salvageRuleState(bytes, last!)).toEqual({ state: decodeRuleState(bytes, last!), lost: undefined });
    expect(salvageRuleState(undefined, last!)).toEqual({ state: undefined, lost: undefined });
  });

  it('keeps the keyed conditions when the keyword columns do not fit the observation', () => {
    const withBsr: RuleState = {
      conditions: { 'b|B0CJ4XQ2ZK|US': { phase: 'clear', baseline: 7, baselineAt: T0, clearAt: T0 } },
    };
    const judged = run([kw], polls);
    const last = judged.last;
    const state: RuleState = { ...judged.state!, conditions: withBsr.conditions };
    const bytes = encodeRuleState(state!, last!);
    const other = keywords(T0 + HOUR, { 'cozy mystery': 20, cat: 9, tea: 3 });
    expect(() => decodeRuleState(bytes, other)).toThrow(RuleStateDecodeError);
    const salvaged = salvageRuleState(bytes, other);
    expect(salvaged.lost?.message).toMatch(/keyword columns for 2 keywords, the observation has 3/);
    expect(salvaged.state).toEqual({ conditions: withBsr.conditions });
  });

  it('keeps the well-formed conditions of a legacy JSON state', () => {
    const { state, last } = run([kw, bsrRule], polls);
    const legacy = JSON.parse(JSON.stringify({ conditions: conditionsOf(state!) }));
    legacy.conditions['kw|B0CJ4XQ2ZK|US|cat'] = { phase: 'firing', baseline: 1 };
    expect(() => decodeRuleState(legacy, last!)).toThrow(RuleStateDecodeError);
    const salvaged = salvageRuleState(legacy, last!);
    expect(salvaged.lost?.message).toMatch(/legacy condition kw\|B0CJ4XQ2ZK\|US\|cat is malformed/);
    const firing = salvaged.state?.keywords?.rules.get('kw');
    expect(firing?.head[0]).toBe(state!.keywords?.rules.get('kw')?.head[0]); // cozy mystery: firing, kept
    expect(firing?.head[1]).toBe(0); // cat: lost, fresh
  });

  it('loses everything of bytes that fail the checksum or come from another version', () => {
    const { state, last } = run([kw], polls);
    const bytes = Buffer.from(encodeRuleState(state!, last!));
    bytes[3] = (bytes[3]! + 1) % 256;
    expect(salvageRuleState(bytes, last!)).toMatchObject({
      state: undefined,
      lost: { name: 'RuleStateDecodeError' },
    });
    const future = Buffer.from(encodeRuleState(state!, last!).subarray(0, -4));
    future[0] = 9;
    expect(salvageRuleState(sealed(future), last!).lost?.message).toMatch(/unsupported rule-state version 9/);
  });
});

describe('version 2: the missing reviews of a campaign', () => {
  const removal = [rule({ id: 'removed', kind: 'review_removed' })];
  const a = review('r1', 5);
  const b = review('r2', 2, { platform: 'goodreads' });

  it('round-trips the missing and the removed reviews exactly', () => {
    const { state, last } = run(removal, [
      reviews(T0, [a, b]),
      reviews(T0 + HOUR, [b]),
      reviews(T0 + 2 * HOUR, [b]),
      reviews(T0 + 3 * HOUR, []),
    ]);
    const byId = [...(state!.reviews?.missing.values() ?? [])].sort((x, y) =>
      x.reviewId.localeCompare(y.reviewId),
    );
    expect(byId).toEqual([
      {
        reviewId: 'r1',
        asin: a.asin,
        platform: 'amazon',
        rating: 5,
        publishedAt: T0,
        missing: 2,
        removedAt: T0 + 2 * HOUR,
      },
      {
        reviewId: 'r2',
        asin: b.asin,
        platform: 'goodreads',
        rating: 2,
        publishedAt: T0,
        missing: 1,
        removedAt: null,
      },
    ]);
    const bytes = encodeRuleState(state!, last!);
    expect(bytes[0]).toBe(2);
    expect(decodeRuleState(bytes, last!)).toEqual(state);
  });
});
