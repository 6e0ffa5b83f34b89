import type { Alert } from '../model/alert.ts';
import type { Observation } from '../model/observation.ts';
import type { RuleState } from '../rule-state/shapes.ts';
import type { RuleConfig } from './config.ts';
import { judge } from './kinds.ts';
import { trackReviews } from './review-track.ts';
import type { RuleContext, Scope } from './scope.ts';

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
  for (const rule of rules) judge(scope, rule, prev, next, reviewPass);
  const after: RuleState = { conditions: scope.after };
  const keywords = scope.keywordPass?.after;
  if (keywords !== undefined) after.keywords = keywords;
  if (reviewPass !== undefined && reviewPass.after.missing.size > 0) after.reviews = reviewPass.after;
  return { alerts: scope.alerts, state: after };
}
