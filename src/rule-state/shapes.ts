/**
 * The shapes of the rules' state that this room stores and the rules read and write: the state of
 * one poll target and the reviews a campaign is missing (a condition's phases are `condition.ts`,
 * the keyword columns `keyword-state.ts`). They live here, below the rules, so the codec stores
 * them without importing the rules' judgement.
 */
import type { ReviewSummary } from '../model/observation.ts';
import type { ConditionState } from './condition.ts';
import type { KeywordState } from './keyword-state.ts';

/**
 * Condition states of one poll target. `conditions` holds the few conditions of BSR rules, keyed
 * `ruleId|subjectKey` (plain JSON); keyword_rank_drop conditions, one per keyword, are columns
 * aligned with the observation (`keyword-state.ts`). Stored by this room's codec.
 */
export interface RuleState {
  conditions: Record<string, ConditionState>;
  /** Absent when no keyword rule judged the target. */
  keywords?: KeywordState;
  /** Reviews missing from a campaign's answers (`rules/review-track.ts`); absent when there are none. */
  reviews?: ReviewTrack;
}

export interface MissingReview extends ReviewSummary {
  /** Complete answers in a row the review was absent from. */
  missing: number;
  /** When it was judged removed (`missing` reached the threshold); null until then. */
  removedAt: number | null;
}

/** Stored in the rule state, keyed by review id. */
export interface ReviewTrack {
  missing: Map<string, MissingReview>;
}
