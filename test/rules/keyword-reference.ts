/**
 * The keyword_rank_drop rule as it was before the columns: one `ConditionState` object per keyword
 * in a record keyed `ruleId|asin|marketplace|keyword`, stepped by the generic condition machine.
 * Written out plainly for the equivalence test; it produces the alerts' identities (fingerprints
 * and the facts titles are made of), not whole alerts.
 */
import type { KeywordsObservation } from '../../src/model/observation.ts';
import type { ConditionState } from '../../src/rule-state/condition.ts';
import {
  initialCondition,
  type Judgement,
  stepCondition,
  transitionObservation,
} from '../../src/rules/condition.ts';
import type { KeywordRankDropRule } from '../../src/rules/config.ts';
import { fingerprint } from '../../src/rules/fingerprint.ts';

export interface ReferenceAlert {
  kind: 'keyword_rank_drop' | 'keyword_rank_recovered';
  fingerprint: string;
  keyword: string;
  before: number | null;
  after: number | null;
  trigger: string | null;
  repeat: number;
  firedAt: number | null;
}

export function referenceEvaluate(
  workspace: string,
  at: number,
  rules: readonly KeywordRankDropRule[],
  prev: KeywordsObservation | undefined,
  next: KeywordsObservation,
  state: Record<string, ConditionState> | undefined,
): { alerts: ReferenceAlert[]; state: Record<string, ConditionState> } {
  const before = state ?? {};
  const after: Record<string, ConditionState> = {};
  const alerts: ReferenceAlert[] = [];
  for (const rule of rules) {
    if (rule.books !== undefined && !rule.books.includes(next.asin)) continue;
    const marketplaces: readonly string[] | undefined = rule.marketplaces;
    if (marketplaces !== undefined && !marketplaces.includes(next.marketplace)) continue;
    for (const { keyword, rank } of next.ranks) {
      if (rule.keywords !== undefined && !rule.keywords.includes(keyword)) continue;
      const key = `${rule.id}|${next.asin}|${next.marketplace}|${keyword}`;
      if (Object.hasOwn(after, key)) continue;
      let current = prev === undefined ? undefined : Object.hasOwn(before, key) ? before[key] : undefined;
      if (current === undefined) {
        // Like `new Map(prev.ranks…)`: the last occurrence of a repeated keyword wins.
        const found = prev?.ranks.filter((r) => r.keyword === keyword).at(-1);
        if (prev === undefined || found === undefined) {
          after[key] = initialCondition(rank, at);
          continue;
        }
        current = initialCondition(found.rank, prev.observedAt);
      }
      const step = stepCondition(current, judge(rule, current, rank, at), {
        for: rule.for,
        repeatEveryMs: rule.repeatEvery,
        at,
      });
      after[key] = step.state;
      const t = step.transition;
      if (t === null || (t.type === 'resolve' && !rule.sendResolved)) continue;
      const resolved = t.type === 'resolve';
      const baseline = resolved ? t.firing.baseline : step.state.baseline;
      const kind = resolved ? 'keyword_rank_recovered' : 'keyword_rank_drop';
      const subject = { asin: next.asin, marketplace: next.marketplace, keyword };
      alerts.push({
        kind,
        fingerprint: fingerprint({
          workspace,
          ruleId: rule.id,
          kind,
          subject,
          observation: transitionObservation(t, step.episode),
        }),
        keyword,
        before: baseline,
        after: rank,
        trigger: resolved ? null : triggers(rule, baseline, rank),
        repeat: t.type === 'repeat' ? t.index : 0,
        firedAt: resolved ? t.firing.firedAt : null,
      });
    }
  }
  return { alerts, state: after };
}

function judge(
  rule: KeywordRankDropRule,
  state: ConditionState,
  rank: number | null,
  at: number,
): Judgement | null {
  if (rank === null && !rule.unranked) return null;
  if (state.phase === 'firing') {
    const recovered = rank !== null && (state.baseline === null || rank <= state.baseline + rule.rearmBand);
    return { breached: true, recovered, baseline: rank, baselineAt: at, reading: rank ?? Infinity };
  }
  let baseline = state.baseline;
  let baselineAt = state.baselineAt;
  const stale = state.phase === 'clear' && at - state.baselineAt >= rule.baselineMaxAge;
  if (rank !== null && (baseline === null || rank <= baseline || stale)) {
    baseline = rank;
    baselineAt = at;
  }
  return {
    breached: triggers(rule, baseline, rank) !== '',
    recovered: false,
    baseline,
    baselineAt,
    reading: rank ?? Infinity,
  };
}

function triggers(rule: KeywordRankDropRule, baseline: number | null, rank: number | null): string {
  if (baseline === null) return '';
  if (rank === null) return rule.unranked ? 'unranked' : '';
  const out: string[] = [];
  const lost = rank - baseline;
  if (rule.positionsLost !== undefined && lost >= rule.positionsLost) out.push('positions');
  if (rule.percent !== undefined && lost > 0 && (lost / baseline) * 100 >= rule.percent) out.push('percent');
  if (rule.leaveTopN !== undefined && baseline <= rule.leaveTopN && rank > rule.leaveTopN) out.push('top_n');
  return out.join(',');
}
