import type { Alert } from '../model/alert.ts';
import type { Observation } from '../model/observation.ts';
import type { RuleState } from '../rule-state/shapes.ts';
import { evaluateBsrRemoved, evaluateBsrWorsened } from './bsr.ts';
import { evaluateCompOvertook } from './comps.ts';
import type { RuleConfig } from './config.ts';
import { evaluateKeywordRanks } from './keyword-rank.ts';
import { type ReviewPass, trackReviews } from './review-track.ts';
import { evaluateReviewCountDown, evaluateReviewNew, evaluateReviewRemoved } from './reviews.ts';
import { evaluateRoyaltyChange, evaluateSalesRevision } from './sales.ts';
import type { RuleContext, Scope } from './scope.ts';
import { evaluateSentimentShift } from './sentiment.ts';

export type { ConditionState } from '../rule-state/condition.ts';
export { conditionsOf, type KeywordState } from '../rule-state/keyword-state.ts';
export type { RuleState } from '../rule-state/shapes.ts';
export { bsrHistoryHoursNeeded } from './bsr.ts';
export type { RuleContext } from './scope.ts';
export {
  evaluateSourceHealth,
  type OutcomeStatus,
  ruleStateLostAlerts,
  type SourceHealthRuleState,
  type SourceHealthState,
} from './source-health.ts';

/**
 * Judges one ok poll of one target: `prev` is the last committed observation of the target,
 * `next` the new one, `state` the condition states committed with `prev`. Pure and deterministic:
 * the same arguments give the same alerts (fingerprints included) and the same state, so a
 * crashed poll can simply be evaluated again.
 *
 * - Call it only for `ok` outcomes; `no_data` and `error` go to `evaluateSourceHealth` and must
 *   leave `prev` and `state` as they were.
 * - `prev === undefined` (first poll, or the snapshot was lost) gives no alerts: it sets baselines.
 * - A lost `state` with a known `prev` is rebuilt from `prev`, so alerts are still judged.
 * - The returned state holds only subjects of this poll (keywords no longer tracked are dropped);
 *   its keyword columns are aligned with `next`, so store it with `next` (`encodeRuleState` in src/rule-state/).
 */
export function evaluate(
  ctx: RuleContext,
  rules: readonly RuleConfig[],
  prev: Observation | undefined,
  next: Observation,
  state: RuleState | undefined,
): { alerts: Alert[]; state: RuleState } {
  const scope: Scope = {
    ctx,
    before: state?.conditions ?? {},
    after: {},
    keywordsBefore: state?.keywords,
    keywordPass: undefined,
    alerts: [],
  };
  // Review ids are judged once per poll, for every review rule (and with none: the memory of
  // missing reviews must not depend on which rules are configured).
  const reviewPass =
    next.kind === 'reviews' && prev?.kind === 'reviews'
      ? trackReviews(prev, next, state?.reviews, ctx.nowMs)
      : undefined;
  // A previous poll of another kind (the target id was reused) is no baseline: like a first poll.
  for (const rule of rules) dispatch(scope, rule, prev, next, reviewPass);
  const after: RuleState = { conditions: scope.after };
  const keywords = scope.keywordPass?.after;
  if (keywords !== undefined) after.keywords = keywords;
  if (reviewPass !== undefined && reviewPass.after.missing.size > 0) after.reviews = reviewPass.after;
  return { alerts: scope.alerts, state: after };
}

function dispatch(
  scope: Scope,
  rule: RuleConfig,
  prev: Observation | undefined,
  next: Observation,
  reviewPass: ReviewPass | undefined,
): void {
  switch (next.kind) {
    case 'keywords': {
      const before = prev?.kind === 'keywords' ? prev : undefined;
      if (rule.kind === 'keyword_rank_drop') evaluateKeywordRanks(scope, rule, before, next);
      return;
    }
    case 'book': {
      const before = prev?.kind === 'book' ? prev : undefined;
      if (rule.kind === 'bsr_worsened') evaluateBsrWorsened(scope, rule, before, next);
      else if (rule.kind === 'bsr_removed') evaluateBsrRemoved(scope, rule, before, next);
      else if (rule.kind === 'comp_overtook') evaluateCompOvertook(scope, rule, before, next);
      else if (rule.kind === 'sentiment_shift') evaluateSentimentShift(scope, rule, before, next);
      else if (rule.kind === 'review_count_down' && before !== undefined) {
        evaluateReviewCountDown(scope, rule, before, next);
      }
      return;
    }
    case 'reviews': {
      // Events need two polls; there is nothing to seed.
      if (reviewPass === undefined) return;
      if (rule.kind === 'review_new') evaluateReviewNew(scope, rule, reviewPass, next);
      else if (rule.kind === 'review_removed') evaluateReviewRemoved(scope, rule, reviewPass, next);
      return;
    }
    case 'sales': {
      const before = prev?.kind === 'sales' ? prev : undefined;
      if (before === undefined) return;
      if (rule.kind === 'royalty_change') evaluateRoyaltyChange(scope, rule, before, next);
      else if (rule.kind === 'sales_revision') evaluateSalesRevision(scope, rule, before, next);
      return;
    }
  }
}
