import type { AlertSubject } from '../model/alert.ts';
import type { KeywordsObservation } from '../model/observation.ts';
import {
  type ConditionState,
  initialCondition,
  type Judgement,
  stepCondition,
  type Transition,
  transitionObservation,
} from './condition.ts';
import type { KeywordRankDropRule } from './config.ts';
import { quote, rank as showRank, where } from './format.ts';
import { appliesTo, emit, type Scope } from './scope.ts';

/**
 * Keyword rank drops. The baseline is the best rank seen since the condition was last clear-after-
 * recovery (it follows improvements, never a worsening), so a slow slide of one or two places a
 * poll still adds up and fires. It restarts at the current rank after `baselineMaxAge`, so a rank
 * that settled lower weeks ago is not compared with a long-gone best.
 */
export function evaluateKeywordRanks(
  scope: Scope,
  rule: KeywordRankDropRule,
  prev: KeywordsObservation | undefined,
  next: KeywordsObservation,
): void {
  if (!appliesTo(rule, next.asin, next.marketplace)) return;
  const at = scope.ctx.nowMs;
  const only = rule.keywords === undefined ? undefined : new Set(rule.keywords);
  const prefix = `${rule.id}|${next.asin}|${next.marketplace}|`;
  // Built only if some state is missing (state lost, rule added): seldom, and then once.
  let prevRanks: Map<string, number | null> | undefined;

  for (const { keyword, rank } of next.ranks) {
    if (only !== undefined && !only.has(keyword)) continue;
    const key = prefix + keyword;
    if (key in scope.after) continue; // a duplicate keyword in one answer is judged once
    let state: ConditionState | undefined = prev === undefined ? undefined : scope.before[key];
    if (state === undefined) {
      if (prev !== undefined) {
        prevRanks ??= new Map(prev.ranks.map((r) => [r.keyword, r.rank]));
      }
      const before = prevRanks?.get(keyword);
      if (prev === undefined || before === undefined) {
        // First sight of this keyword: a silent baseline.
        scope.after[key] = initialCondition(rank, at);
        continue;
      }
      state = initialCondition(before, prev.observedAt);
    }
    const step = stepCondition(state, judge(rule, state, rank, at), {
      for: rule.for,
      repeatEveryMs: rule.repeatEvery,
      at,
    });
    scope.after[key] = step.state;
    const transition = step.transition;
    if (transition === null) continue;
    if (transition.type === 'resolve' && !rule.sendResolved) continue;

    announce(scope, rule, next, keyword, rank, step.state, transition, step.episode);
  }
}

/** Builds the alert of a transition. Plain object literals, no spreads: this runs per firing keyword. */
function announce(
  scope: Scope,
  rule: KeywordRankDropRule,
  next: KeywordsObservation,
  keyword: string,
  rank: number | null,
  state: ConditionState,
  transition: Transition,
  episode: number,
): void {
  const resolved = transition.type === 'resolve';
  const baseline = resolved ? transition.firing.baseline : state.baseline;
  const lost = rank !== null && baseline !== null ? rank - baseline : null;
  const kw = quote(keyword);
  let what: string;
  if (resolved) what = `${kw} is back at ${showRank(rank)} (had fallen from ${showRank(baseline)})`;
  else if (rank === null) what = `${kw} lost its rank (was ${showRank(baseline)})`;
  else if (transition.type === 'fire') what = `${kw} fell from ${showRank(baseline)} to ${showRank(rank)}`;
  else what = `${kw} is still down: ${showRank(rank)} (from ${showRank(baseline)})`;
  const subject: AlertSubject = { asin: next.asin, marketplace: next.marketplace, keyword };
  emit(scope, rule, {
    kind: resolved ? 'keyword_rank_recovered' : 'keyword_rank_drop',
    status: resolved ? 'resolved' : 'firing',
    subject,
    observation: transitionObservation(transition, episode),
    title: `${what} ${where(next.asin, next.marketplace)}`,
    facts: {
      keyword,
      asin: next.asin,
      marketplace: next.marketplace,
      before: baseline,
      after: rank,
      positionsLost: lost,
      percentWorse: lost !== null && baseline !== null ? (lost / baseline) * 100 : null,
      unranked: rank === null,
      trigger: resolved ? null : triggers(rule, baseline, rank),
      repeat: transition.type === 'repeat' ? transition.index : 0,
      firedAt: resolved ? transition.firing.firedAt : null,
    },
    observedAt: next.observedAt,
  });
}

function judge(
  rule: KeywordRankDropRule,
  state: ConditionState,
  rank: number | null,
  at: number,
): Judgement | null {
  // Without the unranked trigger a null rank says nothing: it is never a drop to infinity.
  if (rank === null && !rule.unranked) return null;
  if (state.phase === 'firing') {
    const recovered = rank !== null && (state.baseline === null || rank <= state.baseline + rule.rearmBand);
    // On recovery the baseline restarts at the recovered rank.
    return { breached: true, recovered, baseline: rank, baselineAt: at };
  }
  let baseline = state.baseline;
  let baselineAt = state.baselineAt;
  const stale = state.phase === 'clear' && at - state.baselineAt >= rule.baselineMaxAge;
  if (rank !== null && (baseline === null || rank <= baseline || stale)) {
    baseline = rank;
    baselineAt = at;
  }
  return { breached: triggers(rule, baseline, rank) !== '', recovered: false, baseline, baselineAt };
}

/** Which configured triggers a reading meets against a baseline, comma-separated ('' for none). */
export function triggers(rule: KeywordRankDropRule, baseline: number | null, rank: number | null): string {
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
