/**
 * Removal needs absence from complete answers, and a return after a removal is a restore (issue
 * #11 item 7): the memory of missing reviews lives in the rule state and survives its codec.
 */
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../src/model/observation.ts';
import { encodeRuleState } from '../../src/rule-state/index.ts';
import { evaluate } from '../../src/rules/engine.ts';
import { REMOVED_REVIEW_KEPT_MS, REVIEW_REMOVED_AFTER_POLLS } from '../../src/rules/review-track.ts';
import { DAY, HOUR, review, reviews, rule, run, T0 } from './helpers.ts';

const rules = [rule({ id: 'new', kind: 'review_new' }), rule({ id: 'removed', kind: 'review_removed' })];

/** Each poll's alerts as `kind reviewId status`, the state going through its bytes as in the poller. */
function polls(observations: Observation[]): string[][] {
  return run(rules, observations, undefined, { stored: true }).perPoll.map((alerts) =>
    alerts.map((x) => `${x.kind} ${x.subject.reviewId} ${x.status}`),
  );
}

const a = review('r1', 5);
const b = review('r2', 4, { publishedAt: T0 - 30 * HOUR });

describe('review removal and restore', () => {
  it('needs the documented number of complete answers', () => {
    expect(REVIEW_REMOVED_AFTER_POLLS).toBe(2);
  });

  it('a removed review that comes back is restored, never new, and a second removal alerts again', () => {
    const seen = polls([
      reviews(T0, [a, b]),
      reviews(T0 + HOUR, [a]),
      reviews(T0 + 2 * HOUR, [a]),
      reviews(T0 + 3 * HOUR, [a]),
      reviews(T0 + 4 * HOUR, [b, a]),
      reviews(T0 + 5 * HOUR, [b, a]),
    ]);
    expect(seen).toEqual([[], [], ['review_removed r2 firing'], [], ['review_restored r2 resolved'], []]);
  });

  it('the restore carries the review and when it was removed; the rule filters apply to it', () => {
    const removal = run(rules, [reviews(T0, [a, b]), reviews(T0 + HOUR, [a]), reviews(T0 + 2 * HOUR, [a])]);
    expect(removal.perPoll.flat().map((x) => x.kind)).toEqual(['review_removed']);
    const back = (judging: typeof rules) =>
      evaluate(
        { workspace: 'ws', targetId: 't1', nowMs: T0 + 3 * HOUR },
        judging,
        removal.last,
        reviews(T0 + 3 * HOUR, [a, b]),
        removal.state,
      ).alerts;
    const restored = back(rules);
    expect(restored).toHaveLength(1);
    expect(restored[0]).toMatchObject({
      kind: 'review_restored',
      facts: { reviewId: 'r2', body: 'Body of r2', removedAt: T0 + 2 * HOUR, rating: 4 },
    });
    expect(restored[0]?.title).toBe(
      'A 4★ Amazon review of B0CJ4XQ2ZK is back after its removal (campaign camp-1)',
    );
    expect(back([rule({ id: 'removed', kind: 'review_removed', platforms: ['audible'] })])).toEqual([]);
  });

  it('failed polls are not answers: the count survives them only through ok polls', () => {
    // The poller never evaluates a failed poll; two ok polls apart in time still make the removal.
    const seen = polls([reviews(T0, [a, b]), reviews(T0 + HOUR, [a]), reviews(T0 + 10 * HOUR, [a])]);
    expect(seen).toEqual([[], [], ['review_removed r2 firing']]);
  });

  it('a removed review is remembered for a bounded time, then forgotten', () => {
    const seen = polls([
      reviews(T0, [a, b]),
      reviews(T0 + HOUR, [a]),
      reviews(T0 + 2 * HOUR, [a]),
      reviews(T0 + 2 * HOUR + REMOVED_REVIEW_KEPT_MS - DAY, [a]),
      reviews(T0 + 3 * HOUR + REMOVED_REVIEW_KEPT_MS, [a]),
      reviews(T0 + 4 * HOUR + REMOVED_REVIEW_KEPT_MS, [a, b]),
    ]);
    // Forgotten after the kept time: its return is a review the campaign has not seen.
    expect(seen.slice(3)).toEqual([[], [], ['review_new r2 firing']]);
  });

  it('a state without missing reviews is still written as version 1, readable by the previous release', () => {
    const { state, last } = run(rules, [reviews(T0, [a]), reviews(T0 + HOUR, [a])]);
    expect(state?.reviews).toBeUndefined();
    expect(encodeRuleState(state!, last!)[0]).toBe(1);
  });
});
