import { z } from 'zod';
import type { AlertSubject } from '../model/alert.ts';
import type { KeywordsObservation } from '../model/observation.ts';
import {
  allocColumns,
  CLEAR,
  copyEntry,
  FIRING,
  type KeywordColumns,
  NONE,
  NULL_BASELINE,
  PENDING,
  PHASE_MASK,
  put,
} from '../rule-state/keyword-state.ts';
import { quote, rank as showRank, where } from '../util/format.ts';
import { type Transition, transitionObservation } from './condition.ts';
import { openKeywordPass } from './keyword-pass.ts';
import { keywordDropEmailRows, keywordRecoveredEmailRows, keywordRows } from './keyword-render.ts';
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
 * The conditions are columns aligned with the keyword list (`rule-state/keyword-state.ts`), and the step below
 * is `stepCondition` + this rule's judgement written out over them, so a steady poll of 1,000
 * keywords reads and writes numbers only: no keys, no objects, except for the alerts it raises.
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

const NO_TRANSITION = 0;
const FIRE = 1;
const REPEAT = 2;
const RESOLVE = 3;

/**
 * What the last step knew besides its transition code, for the alert: reused, so that stepping a
 * keyword allocates nothing (evaluation is synchronous, nothing interleaves).
 */
const stepped = {
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
function step(
  rule: KeywordRankDropRule,
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

/** `triggers(…) !== ''` without building the string: the judgement of every keyword of every poll. */
function breaches(rule: KeywordRankDropRule, baseline: number | null, rank: number | null): boolean {
  if (baseline === null) return false;
  if (rank === null) return rule.unranked;
  const lost = rank - baseline;
  if (rule.positionsLost !== undefined && lost >= rule.positionsLost) return true;
  if (rule.percent !== undefined && lost > 0 && (lost / baseline) * 100 >= rule.percent) return true;
  return rule.leaveTopN !== undefined && baseline <= rule.leaveTopN && rank > rule.leaveTopN;
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

/** The keyword family's kinds as the renderers see them (registered in `kinds.ts`). */
export const keywordKinds = {
  keyword_rank_drop: {
    label: 'Keyword rank drop',
    noun: ['keyword rank drop', 'keyword rank drops'],
    rows: keywordRows,
    emailRows: keywordDropEmailRows,
  },
  keyword_rank_recovered: {
    label: 'Keyword rank recovered',
    noun: ['keyword rank recovery', 'keyword rank recoveries'],
    rows: keywordRows,
    emailRows: keywordRecoveredEmailRows,
  },
} satisfies FamilyParts<'keyword_rank_drop' | 'keyword_rank_recovered'>;

/** The keyword family's rule (registered in `kinds.ts`). */
export const keywordJudges = {
  keyword_rank_drop: (scope, rule, prev, next) => {
    if (next.kind === 'keywords') evaluateKeywordRanks(scope, rule, sameKind(prev, next), next);
  },
} satisfies { keyword_rank_drop: Judge<KeywordRankDropRule> };
