import { z } from 'zod';
import { asinSchema } from '../api/index.ts';
import type { CompFacts } from '../model/alert-facts.ts';
import type { BookObservation, CompTitle } from '../model/observation.ts';
import type { ConditionState, FiringCondition } from '../rule-state/condition.ts';
import { quote, rank as showRank, where } from '../util/format.ts';
import { initialCondition, type Judgement, stepCondition, transitionObservation } from './condition.ts';
import {
  emailRank,
  emailRows,
  type FactRow,
  type FamilyParts,
  rankOf,
  rows,
  show,
  text,
} from './kind-parts.ts';
import { base, conditionFields } from './rule-fields.ts';
import { appliesTo, emit, type Judge, type Scope, sameKind } from './scope.ts';

// ---- configuration -------------------------------------------------------------------------

/** What "ahead" means when a rule sets no margin (and, on the console, when no rule covers a book). */
export const DEFAULT_COMP_MARGIN = 0.1;

export const compOvertookSchema = z.strictObject({
  ...base('comp_overtook', 'info'),
  for: conditionFields.for,
  // Falling behind again is half of what authors asked for: announced unless turned off.
  sendResolved: z.boolean().default(true).describe('Also alert when the comp falls behind again.'),
  comps: z.array(asinSchema).min(1).optional().describe('Only these comp ASINs (default: all listed).'),
  margin: z
    .number()
    .positive()
    .default(DEFAULT_COMP_MARGIN)
    .describe(
      'Ahead when comp BSR × (1 + margin) ≤ book BSR; behind when comp BSR ≥ book BSR × (1 + margin).',
    ),
});

export type CompOvertookRule = z.output<typeof compOvertookSchema>;

/** This family's share of the rules a workspace gets when its config lists none. */
export const compDefaults: z.input<typeof compOvertookSchema>[] = [
  { id: 'comp-overtook', kind: 'comp_overtook' },
];

const isCompOvertook = (rule: { kind: string }): rule is CompOvertookRule => rule.kind === 'comp_overtook';

/** The margin a book's comps are judged with: its first comps rule's, else the default. */
export function compMarginOf(rules: readonly { kind: string }[], asin: string, marketplace: string): number {
  for (const rule of rules)
    if (isCompOvertook(rule) && appliesTo(rule, asin, marketplace)) return rule.margin;
  return DEFAULT_COMP_MARGIN;
}

/** Slack for float rounding in the ratio comparisons. */
const EPSILON = 1e-9;
/** Comps judged per book, in the API's order: the rule state must stay small whatever a payload lists. */
export const MAX_COMPS_JUDGED = 50;

/**
 * comp_overtook: one condition per comp title of a book, on the ratio comp BSR ÷ book BSR (below 1:
 * the comp sells better). It fires when the comp is ahead by the margin (ratio ≤ 1 ÷ (1 + margin))
 * and resolves (`comp_fell_behind`) only once the comp is behind by the margin (ratio ≥ 1 + margin):
 * a comp hovering next to the book sits in the band between and alerts nothing. The condition's
 * baseline holds the last judged ratio; null means "standing not known yet".
 */
export function compRatio(bookBsr: number | null, compBsr: number | null): number | null {
  if (bookBsr === null || compBsr === null || bookBsr <= 0 || compBsr <= 0) return null;
  return compBsr / bookBsr;
}

export function compAhead(ratio: number, margin: number): boolean {
  return ratio * (1 + margin) <= 1 + EPSILON;
}

export function compBehind(ratio: number, margin: number): boolean {
  return ratio >= 1 + margin - EPSILON;
}

/**
 * Where a comp stands without alerting: ahead starts the condition as firing (the overtaking
 * happened before anyone watched, so it is not news), anything else as clear.
 */
function standing(ratio: number | null, margin: number, at: number): ConditionState {
  if (ratio === null || !compAhead(ratio, margin)) return initialCondition(ratio, at);
  const firing: FiringCondition = {
    phase: 'firing',
    baseline: ratio,
    baselineAt: at,
    clearAt: at,
    firedAt: at,
    lastNotifiedAt: at,
    repeatCount: 0,
  };
  return firing;
}

export function evaluateCompOvertook(
  scope: Scope,
  rule: CompOvertookRule,
  prev: BookObservation | undefined,
  next: BookObservation,
): void {
  if (!appliesTo(rule, next.asin, next.marketplace)) return;
  const prefix = `${rule.id}|${next.asin}|${next.marketplace}|`;
  const comps = next.compTitles;
  if (comps === undefined) {
    // No comp list in this answer is no data: every comp keeps its state, nothing is judged.
    for (const [key, state] of Object.entries(scope.before))
      if (key.startsWith(prefix)) scope.after[key] = state;
    return;
  }
  for (const comp of comps.slice(0, MAX_COMPS_JUDGED)) {
    if (comp.asin === next.asin || (rule.comps !== undefined && !rule.comps.includes(comp.asin))) continue;
    const key = prefix + comp.asin;
    // A comp listed twice is judged once.
    if (Object.hasOwn(scope.after, key)) continue;
    judgeComp(scope, rule, key, prev, next, comp);
  }
}

function judgeComp(
  scope: Scope,
  rule: CompOvertookRule,
  key: string,
  prev: BookObservation | undefined,
  next: BookObservation,
  comp: CompTitle,
): void {
  const at = scope.ctx.nowMs;
  const ratio = compRatio(next.bsr, comp.bsr);
  const prevComp = prev?.compTitles?.find((c) => c.asin === comp.asin);
  // A lost state is rebuilt from the previous answer; a comp new to the list only sets its standing.
  const state =
    scope.before[key] ??
    (prev !== undefined && prevComp !== undefined
      ? standing(compRatio(prev.bsr, prevComp.bsr), rule.margin, prev.observedAt)
      : undefined);
  if (state === undefined || (state.phase === 'clear' && state.baseline === null)) {
    scope.after[key] = standing(ratio, rule.margin, at);
    return;
  }
  let judgement: Judgement | null = null;
  if (ratio !== null) {
    judgement =
      state.phase === 'firing'
        ? { breached: true, recovered: compBehind(ratio, rule.margin), baseline: ratio, baselineAt: at }
        : { breached: compAhead(ratio, rule.margin), recovered: false, baseline: ratio, baselineAt: at };
  }
  const step = stepCondition(state, judgement, { for: rule.for, at });
  scope.after[key] = step.state;
  const transition = step.transition;
  if (transition === null || transition.type === 'repeat') return;
  if (transition.type === 'resolve' && !rule.sendResolved) return;

  const book = quote(next.title);
  const compName = quote(comp.title);
  const ranks = `${showRank(comp.bsr)} against ${showRank(next.bsr)}`;
  const place = where(next.asin, next.marketplace);
  const overtook = transition.type === 'fire';
  emit(scope, rule, {
    kind: overtook ? 'comp_overtook' : 'comp_fell_behind',
    status: overtook ? 'firing' : 'resolved',
    subject: { asin: next.asin, marketplace: next.marketplace, compAsin: comp.asin },
    observation: transitionObservation(transition, step.episode),
    observedAt: next.observedAt,
    title: overtook
      ? `Comp title ${compName} moved ahead of ${book}: ${ranks} ${place}`
      : `Comp title ${compName} fell behind ${book} again: ${ranks} ${place}`,
    facts: {
      asin: next.asin,
      marketplace: next.marketplace,
      bookTitle: next.title,
      compAsin: comp.asin,
      compTitle: comp.title,
      bookBsr: next.bsr,
      compBsr: comp.bsr,
      ratio,
      margin: rule.margin,
    },
  });
}

const compRows = ({ facts: f }: { facts: CompFacts }): FactRow[] =>
  rows((add) => {
    add('Book', text(f.bookTitle));
    add('Comp title', text(f.compTitle));
    add('Rank', `${rankOf(f.compBsr)} (comp) vs ${rankOf(f.bookBsr)} (book)`);
  });
const compEmailRows = ({ facts: f }: { facts: CompFacts }): FactRow[] =>
  emailRows(
    // The comp's title first, its ASIN beside it (never an ASIN on a row of its own when titled).
    [
      'Comp title',
      f.compTitle === undefined || f.compTitle === null || f.compAsin === undefined
        ? show(f.compTitle ?? f.compAsin)
        : `${show(f.compTitle)} (${show(f.compAsin)})`,
    ],
    ['Best-seller rank', `${emailRank(f.compBsr)} (comp) vs ${emailRank(f.bookBsr)} (book)`],
  );

/** The comps family's kinds as the renderers see them (registered in `kinds.ts`). */
export const compKinds = {
  comp_overtook: {
    label: 'Comp title moved ahead',
    noun: ['comp title ahead', 'comp titles ahead'],
    rows: compRows,
    emailRows: compEmailRows,
  },
  comp_fell_behind: {
    label: 'Comp title fell behind',
    noun: ['comp title behind again', 'comp titles behind again'],
    rows: compRows,
    emailRows: compEmailRows,
  },
} satisfies FamilyParts<'comp_overtook' | 'comp_fell_behind'>;

/** The comps family's rule (registered in `kinds.ts`). */
export const compJudges = {
  comp_overtook: (scope, rule, prev, next) => {
    if (next.kind === 'book') evaluateCompOvertook(scope, rule, sameKind(prev, next), next);
  },
} satisfies { comp_overtook: Judge<CompOvertookRule> };
