import { z } from 'zod';
import type { AlertSubject } from '../model/alert.ts';
import type { KeywordsObservation } from '../model/observation.ts';
import { allocColumns, CLEAR, NONE, PHASE_MASK, put } from '../rule-state/keyword-state.ts';
import { quote, rank as showRank, where } from '../util/format.ts';
import { type Transition, transitionObservation } from './condition.ts';
import { openKeywordPass } from './keyword-pass.ts';
import { keywordDropEmailRows, keywordRecoveredEmailRows, keywordRows } from './keyword-render.ts';
import { FIRE, NO_TRANSITION, REPEAT, RESOLVE, step, stepped, triggers } from './keyword-step.ts';
import type { FamilyParts } from './kind-parts.ts';
import { lowPoint, lowPointFacts } from './low-point.ts';
import { base, conditionFields, duration, percentSchema } from './rule-fields.ts';
import { appliesTo, bookFacts, bookOf, emit, type Judge, type Scope, sameKind } from './scope.ts';

// ---- configuration -------------------------------------------------------------------------

export const keywordRankDropSchema = z
  .strictObject({
    ...base('keyword_rank_drop', 'warning'),
    ...conditionFields,
    keywords: z.array(z.string().min(1)).min(1).optional().describe('Only these keywords (exact).'),
    positionsLost: z.number().int().min(1).optional().describe('Fire when ≥ N positions below baseline.'),
    percent: percentSchema.optional().describe('Fire when the rank is ≥ p% worse than baseline.'),
    leaveTopN: z.number().int().min(1).optional().describe('Fire when it was in the top N and is not.'),
    unranked: z.boolean().default(true).describe('Fire when a ranked keyword becomes unranked.'),
    rearmBand: z.number().int().min(0).default(2).describe('Resolve only within baseline + band.'),
    baselineMaxAge: duration.prefault('7d').describe('Restart the baseline after this long.'),
  })
  .refine(
    (r) =>
      r.positionsLost !== undefined || r.percent !== undefined || r.leaveTopN !== undefined || r.unranked,
    {
      message: 'keyword_rank_drop needs a trigger: positionsLost, percent, leaveTopN or unranked: true',
    },
  );

export type KeywordRankDropRule = z.output<typeof keywordRankDropSchema>;

/** This family's share of the rules a workspace gets when its config lists none. */
export const keywordDefaults: z.input<typeof keywordRankDropSchema>[] = [
  { id: 'keyword-drop', kind: 'keyword_rank_drop', positionsLost: 5, leaveTopN: 10, for: 2 },
];

/**
 * Keyword rank drops. The baseline is the best rank seen since the condition was last clear-after-
 * recovery (it follows improvements, never a worsening), so a slow slide of one or two places a
 * poll still adds up and fires. It restarts at the current rank after `baselineMaxAge`, so a rank
 * that settled lower weeks ago is not compared with a long-gone best.
 *
 * The conditions are columns aligned with the keyword list (`rule-state/keyword-state.ts`), and
 * its step (`keyword-step.ts`) is `stepCondition` + this rule's judgement written out over them, so
 * a steady poll of 1,000 keywords reads and writes numbers only: no keys, no objects, except for
 * the alerts it raises.
 */
export function evaluateKeywordRanks(
  scope: Scope,
  rule: KeywordRankDropRule,
  prev: KeywordsObservation | undefined,
  next: KeywordsObservation,
): void {
  if (!appliesTo(rule, next.asin, next.marketplace)) return;
  scope.keywordPass ??= openKeywordPass(scope.keywordsBefore, prev, next);
  const { toBefore, repeatOf, before, after } = scope.keywordPass;
  const at = scope.ctx.nowMs;
  const ranks = next.ranks;
  const n = ranks.length;
  const only = rule.keywords === undefined ? undefined : new Set(rule.keywords);
  // Two rules with one id share columns: a keyword the first judged is not judged again (as with keys).
  let out = after.rules.get(rule.id);
  if (out === undefined) {
    out = allocColumns(n);
    after.rules.set(rule.id, out);
  }
  const stored = before?.rules.get(rule.id);
  // Built only if some state is missing (state lost, rule added): seldom, and then once.
  let prevRanks: Map<string, number | null> | undefined;

  for (let i = 0; i < n; i++) {
    if (repeatOf !== null && repeatOf[i]! >= 0) continue; // a duplicate keyword in one answer is judged once
    if (out.head[i] !== NONE) continue;
    const { keyword, rank } = ranks[i]!;
    if (only !== undefined && !only.has(keyword)) continue;
    const s = stored === undefined ? -1 : toBefore === null ? i : toBefore[i]!;
    let transition: number;
    if (s >= 0 && (stored!.head[s]! & PHASE_MASK) !== NONE) {
      transition = step(rule, at, rank, stored!, s, out, i);
    } else {
      if (prev !== undefined) prevRanks ??= new Map(prev.ranks.map((r) => [r.keyword, r.rank]));
      const last = prevRanks?.get(keyword);
      if (prev === undefined || last === undefined) {
        // First sight of this keyword: a silent baseline.
        put(out, i, CLEAR, rank, at, at, 0, 0, 0, 0);
        continue;
      }
      // Lost state: rebuilt from the previous snapshot, so the change is still judged.
      put(out, i, CLEAR, last, prev.observedAt, prev.observedAt, 0, 0, 0, 0);
      transition = step(rule, at, rank, out, i, out, i);
    }
    if (transition === NO_TRANSITION) continue;
    if (transition === RESOLVE && !rule.sendResolved) continue;
    announce(scope, rule, next, keyword, rank, transition);
  }
}

/** Builds the alert of a transition from what `step` left in `stepped`. */
function announce(
  scope: Scope,
  rule: KeywordRankDropRule,
  next: KeywordsObservation,
  keyword: string,
  rank: number | null,
  code: number,
): void {
  const { baseline, episode } = stepped;
  const at = scope.ctx.nowMs;
  const transition: Transition =
    code === FIRE
      ? { type: 'fire' }
      : code === REPEAT
        ? { type: 'repeat', index: stepped.repeatCount }
        : {
            type: 'resolve',
            firing: {
              phase: 'firing',
              baseline,
              baselineAt: stepped.baselineAt,
              clearAt: episode,
              firedAt: stepped.firedAt,
              lastNotifiedAt: stepped.lastNotifiedAt,
              repeatCount: stepped.repeatCount,
              ...(stepped.worst === 0 ? {} : { worst: stepped.worst }),
            },
          };
  const resolved = transition.type === 'resolve';
  const lost = rank !== null && baseline !== null ? rank - baseline : null;
  const kw = quote(keyword);
  let what: string;
  if (resolved) what = `${kw} is back at ${showRank(rank)}`;
  else if (rank === null) what = `${kw} lost its rank (was ${showRank(baseline)})`;
  else if (transition.type === 'fire') what = `${kw} fell from ${showRank(baseline)} to ${showRank(rank)}`;
  else what = `${kw} is still down: ${showRank(rank)} (from ${showRank(baseline)})`;
  const subject: AlertSubject = { asin: next.asin, marketplace: next.marketplace, keyword };
  const book = bookOf(scope.ctx, next.asin, next.marketplace);
  emit(scope, rule, {
    kind: resolved ? 'keyword_rank_recovered' : 'keyword_rank_drop',
    status: resolved ? 'resolved' : 'firing',
    subject,
    observation: transitionObservation(transition, episode),
    episode,
    title: `${what}${book === undefined ? '' : ` for “${book.title}”`} ${where(next.asin, next.marketplace)}${
      transition.type === 'resolve' ? ` — ${lowPoint(transition.firing, at)}` : ''
    }`,
    facts: {
      keyword,
      asin: next.asin,
      marketplace: next.marketplace,
      ...bookFacts(scope.ctx, next.asin, next.marketplace),
      before: baseline,
      after: rank,
      positionsLost: lost,
      percentWorse: lost !== null && baseline !== null ? (lost / baseline) * 100 : null,
      unranked: rank === null,
      trigger: resolved ? null : triggers(rule, baseline, rank),
      // So a message can say "left the top 10" instead of the trigger's name.
      topN: rule.leaveTopN ?? null,
      repeat: transition.type === 'repeat' ? transition.index : 0,
      firedAt: transition.type === 'resolve' ? transition.firing.firedAt : null,
      ...(transition.type === 'resolve' ? lowPointFacts(transition.firing, at) : {}),
    },
    observedAt: next.observedAt,
  });
}

/** The keyword family's kinds as the renderers see them (registered in `kinds.ts`). */
export const keywordKinds = {
  keyword_rank_drop: {
    label: 'Keyword rank drop',
    noun: ['keyword rank drop', 'keyword rank drops'],
    rows: keywordRows,
    emailRows: keywordDropEmailRows,
    rank: { of: 'keyword', leaves: 'down' },
  },
  keyword_rank_recovered: {
    label: 'Keyword rank recovered',
    noun: ['keyword rank recovery', 'keyword rank recoveries'],
    rows: keywordRows,
    emailRows: keywordRecoveredEmailRows,
    rank: { of: 'keyword', leaves: 'clear' },
  },
} satisfies FamilyParts<'keyword_rank_drop' | 'keyword_rank_recovered'>;

/** The keyword family's rule (registered in `kinds.ts`). */
export const keywordJudges = {
  keyword_rank_drop: (scope, rule, prev, next) => {
    if (next.kind === 'keywords') evaluateKeywordRanks(scope, rule, sameKind(prev, next), next);
  },
} satisfies { keyword_rank_drop: Judge<KeywordRankDropRule> };
