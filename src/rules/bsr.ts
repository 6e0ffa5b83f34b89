import { z } from 'zod';
import type { AlertSubject } from '../model/alert.ts';
import type { BookObservation } from '../model/observation.ts';
import type { ConditionState } from '../rule-state/condition.ts';
import { spokenDuration } from '../util/duration.ts';
import { quote, rank as showRank, where } from '../util/format.ts';
import { median } from '../util/stats.ts';
import {
  emailBsr,
  rankRows,
  recoveredEmailRows,
  removedRows,
  restoredEmailRows,
  restoredRows,
} from './bsr-render.ts';
import { recentRanks } from './bsr-window.ts';
import { breachJudgement, initialCondition, type Judgement, transitionObservation } from './condition.ts';
import type { FamilyParts } from './kind-parts.ts';
import { lowPoint, lowPointFacts } from './low-point.ts';
import { base, conditionFields } from './rule-fields.ts';
import { advanceCondition, appliesTo, emit, type Judge, type Scope, sameKind } from './scope.ts';

// ---- configuration -------------------------------------------------------------------------

export const bsrWorsenedSchema = z.strictObject({
  ...base('bsr_worsened', 'warning'),
  ...conditionFields,
  baselineHours: z.number().int().min(1).max(72).default(24).describe('Hours of history in the median.'),
  factor: z.number().positive().default(1).describe('Fire when rank ≥ median × (1 + factor).'),
  minRankChange: z.number().int().min(0).default(10).describe('…and at least this many places worse.'),
  rearmFactor: z.number().min(0).default(0.5).describe('Resolve when rank ≤ baseline × (1 + rearmFactor).'),
});

export const bsrRemovedSchema = z.strictObject({
  ...base('bsr_removed', 'warning'),
  for: conditionFields.for,
  repeatEvery: conditionFields.repeatEvery,
});

export type BsrWorsenedRule = z.output<typeof bsrWorsenedSchema>;
export type BsrRemovedRule = z.output<typeof bsrRemovedSchema>;

/** This family's share of the rules a workspace gets when its config lists none. */
export const bsrDefaults: (z.input<typeof bsrWorsenedSchema> | z.input<typeof bsrRemovedSchema>)[] = [
  { id: 'bsr-worse', kind: 'bsr_worsened', for: 2 },
  { id: 'bsr-removed', kind: 'bsr_removed' },
];

/** Slack for float rounding in the log comparison (log10(100) - log10(50) vs log10(2)). */
const EPSILON = 1e-9;

const isBsrWorsened = (rule: { kind: string }): rule is BsrWorsenedRule => rule.kind === 'bsr_worsened';

/** How many hours of `bsrHistory` the rules need: the poller must keep at least this much. */
export function bsrHistoryHoursNeeded(rules: readonly { kind: string }[]): number {
  let hours = 0;
  for (const rule of rules) if (isBsrWorsened(rule)) hours = Math.max(hours, rule.baselineHours);
  return hours;
}

/**
 * BSR is log-like, so "worse" is a ratio: fire when log10(current) − log10(baseline) ≥
 * log10(1 + factor), i.e. current ≥ baseline × (1 + factor), AND current − baseline ≥ minRankChange.
 * The ratio keeps #500,000 → #600,000 (one missing sale in the long tail) quiet; the absolute floor
 * keeps #2 → #5 (a ratio of 2.5, but three places) quiet at the very top.
 */
export function bsrWorse(rule: BsrWorsenedRule, baseline: number | null, current: number): boolean {
  if (baseline === null || baseline <= 0) return false;
  const logRatio = Math.log10(current) - Math.log10(baseline);
  return logRatio >= Math.log10(1 + rule.factor) - EPSILON && current - baseline >= rule.minRankChange;
}

function bookSubject(book: BookObservation): AlertSubject {
  return { asin: book.asin, marketplace: book.marketplace };
}

/** The state to judge from: the stored one, or one rebuilt from `prev` when it was lost. */
function startState(
  scope: Scope,
  key: string,
  prev: BookObservation | undefined,
  baselineOf: (book: BookObservation) => number | null,
): ConditionState | undefined {
  if (prev === undefined) return undefined;
  return scope.before[key] ?? initialCondition(baselineOf(prev), prev.observedAt);
}

/**
 * The bar a clear condition is judged against: the better (lower) of the median now and the median
 * the last poll knew. At a slow cadence, or after a gap, most of the window can lie after a change
 * no poll saw yet: the median now has then taken the worse hours in and would hide a drop that
 * persists; the last poll's median still holds the rank before it.
 */
function betterOf(rolling: number | null, known: number | null): number | null {
  if (rolling === null) return known;
  return known === null ? rolling : Math.min(rolling, known);
}

export function evaluateBsrWorsened(
  scope: Scope,
  rule: BsrWorsenedRule,
  prev: BookObservation | undefined,
  next: BookObservation,
): void {
  if (!appliesTo(rule, next.asin, next.marketplace)) return;
  const at = scope.ctx.nowMs;
  const key = `${rule.id}|${next.asin}|${next.marketplace}`;
  const window = recentRanks(next, rule.baselineHours);
  const rolling = median(window);
  const state = startState(scope, key, prev, (book) => median(recentRanks(book, rule.baselineHours)));
  if (state === undefined) {
    scope.after[key] = initialCondition(rolling, at);
    return;
  }
  const current = next.bsr;
  let judgement: Judgement | null = null;
  // A null rank is bsr_removed's business, never a drop to infinity here.
  if (current !== null) {
    if (state.phase === 'firing') {
      const recovered = state.baseline === null || current <= state.baseline * (1 + rule.rearmFactor);
      judgement = { breached: true, recovered, baseline: rolling, baselineAt: at, reading: current };
    } else {
      const reference = state.phase === 'clear' ? betterOf(rolling, state.baseline) : state.baseline;
      judgement = breachJudgement(
        bsrWorse(rule, reference, current),
        { baseline: reference, at },
        { baseline: rolling, at },
        current,
      );
    }
  }
  const announced = advanceCondition(scope, key, state, judgement, rule, rule.sendResolved);
  if (announced === null || current === null) return;
  const { transition, episode, baseline: before } = announced;

  const book = quote(next.title);
  const place = where(next.asin, next.marketplace);
  const hours = `${rule.baselineHours}h median`;
  const facts = {
    asin: next.asin,
    marketplace: next.marketplace,
    bookTitle: next.title,
    category: next.bsrCategory,
    before,
    after: current,
    ratio: before === null ? null : current / before,
    rankChange: before === null ? null : current - before,
    baselineHours: rule.baselineHours,
  };
  const common = {
    subject: bookSubject(next),
    observation: transitionObservation(transition, episode),
    episode,
    observedAt: next.observedAt,
    series: [...window, current],
  };
  if (transition.type === 'resolve') {
    emit(scope, rule, {
      ...common,
      kind: 'bsr_recovered',
      status: 'resolved',
      title: `Best-seller rank of ${book} recovered to ${showRank(current)} (${hours} before: ${showRank(before)}) ${place} — ${lowPoint(transition.firing, at)}`,
      facts: { ...facts, ...lowPointFacts(transition.firing, at) },
    });
    return;
  }
  const title =
    transition.type === 'fire'
      ? `Best-seller rank of ${book} worsened to ${showRank(current)} from a ${hours} of ${showRank(before)} ${place}`
      : `Best-seller rank of ${book} is still worse: ${showRank(current)} (${hours} before: ${showRank(before)}) ${place}`;
  emit(scope, rule, {
    ...common,
    kind: 'bsr_worsened',
    title,
    facts: { ...facts, repeat: transition.type === 'repeat' ? transition.index : 0 },
  });
}

/**
 * Rank removal is a condition of its own: it fires when a known rank becomes null and resolves
 * (always announced, as `bsr_restored`) when any number comes back. The baseline is the last rank.
 */
export function evaluateBsrRemoved(
  scope: Scope,
  rule: BsrRemovedRule,
  prev: BookObservation | undefined,
  next: BookObservation,
): void {
  if (!appliesTo(rule, next.asin, next.marketplace)) return;
  const at = scope.ctx.nowMs;
  const key = `${rule.id}|${next.asin}|${next.marketplace}`;
  const state = startState(scope, key, prev, (book) => book.bsr);
  if (state === undefined) {
    scope.after[key] = initialCondition(next.bsr, at);
    return;
  }
  const current = next.bsr;
  const judgement: Judgement =
    current === null
      ? {
          breached: state.baseline !== null,
          recovered: false,
          baseline: state.baseline,
          baselineAt: state.baselineAt,
        }
      : { breached: false, recovered: true, baseline: current, baselineAt: at };
  // Always announced: the rank coming back is news whatever sendResolved says.
  const announced = advanceCondition(scope, key, state, judgement, rule, true);
  if (announced === null) return;
  const { transition, episode, baseline: lastRank } = announced;

  const book = quote(next.title);
  const place = where(next.asin, next.marketplace);
  const facts = {
    asin: next.asin,
    marketplace: next.marketplace,
    bookTitle: next.title,
    category: next.bsrCategory,
    before: lastRank,
    after: current,
  };
  const common = {
    subject: bookSubject(next),
    observation: transitionObservation(transition, episode),
    episode,
    observedAt: next.observedAt,
  };
  if (transition.type === 'resolve') {
    emit(scope, rule, {
      ...common,
      kind: 'bsr_restored',
      status: 'resolved',
      title: `Best-seller rank of ${book} is back: ${showRank(current)} (before removal: ${showRank(lastRank)}) ${place} — removed for ${spokenDuration(at - transition.firing.firedAt)}`,
      facts: { ...facts, removedAt: transition.firing.firedAt, downForMs: at - transition.firing.firedAt },
    });
    return;
  }
  const what =
    transition.type === 'repeat'
      ? `Best-seller rank of ${book} is still removed`
      : `Amazon removed the best-seller rank of ${book}`;
  emit(scope, rule, {
    ...common,
    kind: 'bsr_removed',
    title: `${what} (was ${showRank(lastRank)}) ${place}`,
    facts: { ...facts, repeat: transition.type === 'repeat' ? transition.index : 0 },
  });
}

/** The BSR family's kinds as the renderers see them (registered in `kinds.ts`). */
export const bsrKinds = {
  bsr_worsened: {
    label: 'Best-seller rank worsened',
    noun: ['best-seller rank drop', 'best-seller rank drops'],
    rows: rankRows,
    emailRows: emailBsr,
    rank: { of: 'bsr', leaves: 'down' },
  },
  bsr_recovered: {
    label: 'Best-seller rank recovered',
    noun: ['best-seller rank recovery', 'best-seller rank recoveries'],
    rows: rankRows,
    emailRows: recoveredEmailRows,
    rank: { of: 'bsr', leaves: 'clear' },
  },
  bsr_removed: {
    label: 'Best-seller rank removed',
    noun: ['best-seller rank removed', 'best-seller ranks removed'],
    rows: removedRows,
    emailRows: emailBsr,
    rank: { of: 'bsr', leaves: 'down' },
  },
  bsr_restored: {
    label: 'Best-seller rank restored',
    noun: ['best-seller rank restored', 'best-seller ranks restored'],
    rows: restoredRows,
    emailRows: restoredEmailRows,
    rank: { of: 'bsr', leaves: 'clear' },
  },
} satisfies FamilyParts<'bsr_worsened' | 'bsr_recovered' | 'bsr_removed' | 'bsr_restored'>;

/** The BSR family's rules (registered in `kinds.ts`). */
export const bsrJudges = {
  bsr_worsened: (scope, rule, prev, next) => {
    if (next.kind === 'book') evaluateBsrWorsened(scope, rule, sameKind(prev, next), next);
  },
  bsr_removed: (scope, rule, prev, next) => {
    if (next.kind === 'book') evaluateBsrRemoved(scope, rule, sameKind(prev, next), next);
  },
} satisfies { bsr_worsened: Judge<BsrWorsenedRule>; bsr_removed: Judge<BsrRemovedRule> };
