/**
 * One keyword's condition stepped over the state's columns (`rule-state/keyword-state.ts`): the
 * judgement of `keyword-rank.ts` for one keyword of one poll, and the triggers that make a rank a
 * drop. Numbers only, so a steady poll of 1,000 keywords reads and writes no keys and no objects.
 */
import {
  CLEAR,
  copyEntry,
  FIRING,
  type KeywordColumns,
  NULL_BASELINE,
  PENDING,
  PHASE_MASK,
  put,
} from '../rule-state/keyword-state.ts';

/** What the step reads of a drop rule (its schema is in `keyword-rank.ts`). */
export interface StepRule {
  unranked: boolean;
  positionsLost?: number | undefined;
  percent?: number | undefined;
  leaveTopN?: number | undefined;
  rearmBand: number;
  baselineMaxAge: number;
  for: number;
  repeatEvery?: number | undefined;
}

/** `triggers(…) !== ''` without building the string: the judgement of every keyword of every poll. */
export function breaches(rule: StepRule, baseline: number | null, rank: number | null): boolean {
  if (baseline === null) return false;
  if (rank === null) return rule.unranked;
  const lost = rank - baseline;
  if (rule.positionsLost !== undefined && lost >= rule.positionsLost) return true;
  if (rule.percent !== undefined && lost > 0 && (lost / baseline) * 100 >= rule.percent) return true;
  return rule.leaveTopN !== undefined && baseline <= rule.leaveTopN && rank > rule.leaveTopN;
}

/** Which configured triggers a reading meets against a baseline, comma-separated ('' for none). */
export function triggers(rule: StepRule, baseline: number | null, rank: number | null): string {
  if (baseline === null) return '';
  if (rank === null) return rule.unranked ? 'unranked' : '';
  let out = '';
  const lost = rank - baseline;
  if (rule.positionsLost !== undefined && lost >= rule.positionsLost) out = 'positions';
  if (rule.percent !== undefined && lost > 0 && (lost / baseline) * 100 >= rule.percent) {
    out = out === '' ? 'percent' : `${out},percent`;
  }
  if (rule.leaveTopN !== undefined && baseline <= rule.leaveTopN && rank > rule.leaveTopN) {
    out = out === '' ? 'top_n' : `${out},top_n`;
  }
  return out;
}

/** Transition codes: numbers, so a steady poll of 1,000 keywords allocates nothing. */
export const NO_TRANSITION = 0;
export const FIRE = 1;
export const REPEAT = 2;
export const RESOLVE = 3;

/**
 * What the last step knew besides its transition code, for the alert: reused, so that stepping a
 * keyword allocates nothing (evaluation is synchronous, nothing interleaves).
 */
export const stepped = {
  /** The episode the poll belongs to (`clearAt` of the episode). */
  episode: 0,
  /** The baseline the alert names: the frozen one, or on resolve the one the firing had. */
  baseline: null as number | null,
  // The firing state a resolve ended.
  baselineAt: 0,
  firedAt: 0,
  lastNotifiedAt: 0,
  repeatCount: 0,
  /** The worst rank of the firing a resolve ended (Infinity: unranked; 0: not known). */
  worst: 0,
};

/**
 * One poll of one condition: the condition at `from[s]` judged against `rank`, the result written to
 * `to[i]` (may be the same entry). Mirrors `judge` + `stepCondition`; returns a transition code.
 */
export function step(
  rule: StepRule,
  at: number,
  rank: number | null,
  from: KeywordColumns,
  s: number,
  to: KeywordColumns,
  i: number,
): number {
  const head = from.head[s]!;
  const phase = head & PHASE_MASK;
  const baseline = (head & NULL_BASELINE) !== 0 ? null : from.baseline[s]!;
  const baselineAt = from.baselineAt[s]!;
  const clearAt = from.clearAt[s]!;
  stepped.episode = clearAt;
  // Without the unranked trigger a null rank says nothing: it is never a drop to infinity.
  if (rank === null && !rule.unranked) {
    if (from !== to || s !== i) copyEntry(from, s, to, i);
    return NO_TRANSITION;
  }
  if (phase === FIRING) {
    const firedAt = from.firedAt[s]!;
    const lastNotifiedAt = from.lastNotifiedAt[s]!;
    const repeatCount = from.repeatCount[s]!;
    const known = from.worst[s]!;
    if (rank !== null && (baseline === null || rank <= baseline + rule.rearmBand)) {
      // Recovered: the baseline restarts at the recovered rank.
      put(to, i, CLEAR, rank, at, at, 0, 0, 0, 0);
      stepped.baseline = baseline;
      stepped.baselineAt = baselineAt;
      stepped.firedAt = firedAt;
      stepped.lastNotifiedAt = lastNotifiedAt;
      stepped.repeatCount = repeatCount;
      stepped.worst = known;
      return RESOLVE;
    }
    // Not known (state stored before the low point was tracked) stays not known: see FiringCondition.
    const worst = known === 0 ? 0 : Math.max(known, rank ?? Number.POSITIVE_INFINITY);
    const every = rule.repeatEvery;
    stepped.baseline = baseline;
    if (every !== undefined && every > 0 && at - lastNotifiedAt >= every) {
      put(to, i, FIRING, baseline, baselineAt, clearAt, 0, firedAt, at, repeatCount + 1, worst);
      stepped.repeatCount = repeatCount + 1;
      return REPEAT;
    }
    if (from !== to || s !== i) copyEntry(from, s, to, i);
    to.worst[i] = worst;
    return NO_TRANSITION;
  }
  let best = baseline;
  let bestAt = baselineAt;
  const stale = phase === CLEAR && at - baselineAt >= rule.baselineMaxAge;
  if (rank !== null && (best === null || rank <= best || stale)) {
    best = rank;
    bestAt = at;
  }
  if (!breaches(rule, best, rank)) {
    put(to, i, CLEAR, best, bestAt, at, 0, 0, 0, 0);
    stepped.episode = at;
    return NO_TRANSITION;
  }
  // Entering pending from clear freezes the baseline this poll was judged against.
  const frozen = phase === CLEAR ? best : baseline;
  const frozenAt = phase === CLEAR ? bestAt : baselineAt;
  const count = phase === PENDING ? from.count[s]! + 1 : 1;
  if (count >= rule.for) {
    put(to, i, FIRING, frozen, frozenAt, clearAt, 0, at, at, 0, rank ?? Number.POSITIVE_INFINITY);
    stepped.baseline = frozen;
    return FIRE;
  }
  put(to, i, PENDING, frozen, frozenAt, clearAt, count, 0, 0, 0);
  return NO_TRANSITION;
}
