import { z } from 'zod';
import type { SentimentFacts } from '../model/alert-facts.ts';
import type { BookObservation } from '../model/observation.ts';
import { quote, where } from '../util/format.ts';
import { breachJudgement, initialCondition, type Judgement, transitionObservation } from './condition.ts';
import {
  change,
  count,
  emailRows,
  type FactRow,
  type FamilyParts,
  num,
  rows,
  show,
  text,
} from './kind-parts.ts';
import { base, conditionFields } from './rule-fields.ts';
import { advanceCondition, appliesTo, emit, type Judge, type Scope, sameKind } from './scope.ts';

// ---- configuration -------------------------------------------------------------------------

export const sentimentShiftSchema = z.strictObject({
  ...base('sentiment_shift', 'warning'),
  ...conditionFields,
  ratingChange: z
    .union([z.number().positive(), z.literal(false)])
    .default(0.2)
    .describe('Fire when the average rating is this many stars off its rolling baseline (false: off).'),
  sentimentPoints: z
    .union([z.number().positive().max(200), z.literal(false)])
    .default(10)
    .describe('Fire when positive − negative is this many percentage points off its baseline (false: off).'),
  baselinePolls: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(24)
    .describe('Polls the rolling baseline (an exponential average) spans.'),
  minReviews: z
    .number()
    .int()
    .min(0)
    .default(20)
    .describe('Judge only books with at least this many reviews.'),
});

export type SentimentShiftRule = z.output<typeof sentimentShiftSchema>;

/** This family's share of the rules a workspace gets when its config lists none. */
export const sentimentDefaults: z.input<typeof sentimentShiftSchema>[] = [
  { id: 'sentiment-shift', kind: 'sentiment_shift' },
];

/** Slack for float rounding: 4.4 − 4.2 is 0.20000000000000018. */
const EPSILON = 1e-9;

export type SentimentMeasure = 'rating' | 'sentiment';

/** positive − negative in percentage points (−100..100): one number that moves with the mood. */
export function netSentiment(book: BookObservation): number | null {
  if (book.sentiment === undefined) return null;
  return Math.round((book.sentiment.positive - book.sentiment.negative) * 10_000) / 100;
}

/** The reading of one measure; null (no reading) while the book has too few reviews to judge. */
export function readingOf(
  book: BookObservation,
  measure: SentimentMeasure,
  minReviews: number,
): number | null {
  if (book.reviewCount === null || book.reviewCount < minReviews) return null;
  return measure === 'rating' ? book.averageRating : netSentiment(book);
}

/** The rolling baseline: an exponential average spanning about `polls` polls. */
export function rollBaseline(baseline: number | null, value: number, polls: number): number {
  if (baseline === null) return value;
  const alpha = 2 / (polls + 1);
  return baseline + alpha * (value - baseline);
}

/**
 * sentiment_shift: one condition per measure (average rating, net sentiment) of a book. A reading
 * is judged against the rolling baseline kept in the condition; it fires when it is `threshold`
 * away (either way) and resolves once back within half of it. A breaching reading does not enter
 * the baseline, so a shift cannot quietly become its own reference while it is pending.
 */
export function evaluateSentimentShift(
  scope: Scope,
  rule: SentimentShiftRule,
  prev: BookObservation | undefined,
  next: BookObservation,
): void {
  if (!appliesTo(rule, next.asin, next.marketplace)) return;
  if (rule.ratingChange !== false) judgeMeasure(scope, rule, 'rating', rule.ratingChange, prev, next);
  if (rule.sentimentPoints !== false)
    judgeMeasure(scope, rule, 'sentiment', rule.sentimentPoints, prev, next);
}

function judgeMeasure(
  scope: Scope,
  rule: SentimentShiftRule,
  measure: SentimentMeasure,
  threshold: number,
  prev: BookObservation | undefined,
  next: BookObservation,
): void {
  const at = scope.ctx.nowMs;
  const key = `${rule.id}|${next.asin}|${next.marketplace}|${measure}`;
  const value = readingOf(next, measure, rule.minReviews);
  const state =
    scope.before[key] ??
    (prev === undefined
      ? undefined
      : initialCondition(readingOf(prev, measure, rule.minReviews), prev.observedAt));
  if (state === undefined || (state.phase === 'clear' && state.baseline === null)) {
    scope.after[key] = initialCondition(value, at);
    return;
  }
  let judgement: Judgement | null = null;
  if (value !== null && state.baseline !== null) {
    const off = Math.abs(value - state.baseline);
    const rolled = rollBaseline(state.baseline, value, rule.baselinePolls);
    judgement =
      state.phase === 'firing'
        ? { breached: true, recovered: off <= threshold / 2 + EPSILON, baseline: rolled, baselineAt: at }
        : breachJudgement(
            off >= threshold - EPSILON,
            { baseline: state.baseline, at: state.baselineAt },
            { baseline: rolled, at },
          );
  }
  const announced = advanceCondition(scope, key, state, judgement, rule, rule.sendResolved);
  if (announced === null || value === null) return;
  const { transition, episode, baseline } = announced;

  const label = measure === 'rating' ? 'Average rating' : 'Net sentiment';
  const show = (n: number | null) => (n === null ? '?' : measure === 'rating' ? n.toFixed(2) : signed(n));
  const moved = baseline === null ? 'moved' : value < baseline ? 'fell' : 'rose';
  const book = quote(next.title);
  const place = where(next.asin, next.marketplace);
  const title =
    transition.type === 'resolve'
      ? `${label} of ${book} is back to ${show(value)} (baseline ${show(baseline)}) ${place}`
      : `${label} of ${book} ${moved} to ${show(value)} from a baseline of ${show(baseline)}${transition.type === 'repeat' ? ' (still off)' : ''} ${place}`;
  emit(scope, rule, {
    kind: transition.type === 'resolve' ? 'sentiment_recovered' : 'sentiment_shift',
    status: transition.type === 'resolve' ? 'resolved' : 'firing',
    subject: { asin: next.asin, marketplace: next.marketplace, measure },
    observation: transitionObservation(transition, episode),
    observedAt: next.observedAt,
    title,
    facts: {
      asin: next.asin,
      marketplace: next.marketplace,
      bookTitle: next.title,
      measure,
      before: baseline,
      after: value,
      change: baseline === null ? null : value - baseline,
      threshold,
      reviewCount: next.reviewCount,
      repeat: transition.type === 'repeat' ? transition.index : 0,
    },
  });
}

function signed(points: number): string {
  const rounded = Math.round(points * 10) / 10;
  return `${rounded > 0 ? '+' : ''}${rounded} pts`;
}

/** `4.40 → 4.10` for a rating, `+74 → +62` for net sentiment points. */
function sentimentChange(f: SentimentFacts): string {
  const fmt = (v: unknown): string => {
    const n = num(v);
    if (n === undefined) return '?';
    return f.measure === 'rating' ? n.toFixed(2) : `${n > 0 ? '+' : ''}${Math.round(n * 10) / 10}`;
  };
  return `${fmt(f.before)} → ${fmt(f.after)}`;
}
const sentimentRows = ({ facts: f }: { facts: SentimentFacts }): FactRow[] =>
  rows((add) => {
    add('Book', text(f.bookTitle));
    add(f.measure === 'rating' ? 'Average rating' : 'Net sentiment (points)', sentimentChange(f));
    add('Reviews', count(f.reviewCount));
  });
const sentimentEmailRows = ({ facts: f }: { facts: SentimentFacts }): FactRow[] =>
  emailRows(
    ['Measure', show(f.measure)],
    ['Baseline → now', change(show(f.before), show(f.after))],
    ['Reviews', show(f.reviewCount)],
  );

/** The sentiment family's kinds as the renderers see them (registered in `kinds.ts`). */
export const sentimentKinds = {
  sentiment_shift: {
    label: 'Review sentiment shifted',
    noun: ['sentiment shift', 'sentiment shifts'],
    rows: sentimentRows,
    emailRows: sentimentEmailRows,
  },
  sentiment_recovered: {
    label: 'Review sentiment back to normal',
    noun: ['sentiment recovery', 'sentiment recoveries'],
    rows: sentimentRows,
    emailRows: sentimentEmailRows,
  },
} satisfies FamilyParts<'sentiment_shift' | 'sentiment_recovered'>;

/** The sentiment family's rule (registered in `kinds.ts`). */
export const sentimentJudges = {
  sentiment_shift: (scope, rule, prev, next) => {
    if (next.kind === 'book') evaluateSentimentShift(scope, rule, sameKind(prev, next), next);
  },
} satisfies { sentiment_shift: Judge<SentimentShiftRule> };
