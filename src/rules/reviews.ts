import { z } from 'zod';
import type { AlertSubject } from '../model/alert.ts';
import type { ReviewFacts } from '../model/alert-facts.ts';
import type {
  BookObservation,
  ReviewDetail,
  ReviewSummary,
  ReviewsObservation,
} from '../model/observation.ts';
import { groupDigits, quote, where } from '../util/format.ts';
import { localTime } from '../util/local-time.ts';
import {
  change,
  count,
  emailRows,
  type FactRow,
  type FamilyParts,
  num,
  rows,
  show,
  showStars,
  text,
  time,
} from './kind-parts.ts';
import type { ReviewPass } from './review-track.ts';
import { base, ratingSchema } from './rule-fields.ts';
import {
  appliesTo,
  bookFacts,
  bookName,
  campaignLabel,
  emit,
  type Judge,
  type RuleContext,
  type Scope,
  sameKind,
} from './scope.ts';

// ---- configuration -------------------------------------------------------------------------

export const reviewNewSchema = z
  .strictObject({
    ...base('review_new', 'info'),
    platforms: z
      .array(z.enum(['amazon', 'audible', 'goodreads']))
      .min(1)
      .optional(),
    minRating: ratingSchema.optional(),
    maxRating: ratingSchema.optional(),
    lowStarAt: z.number().int().min(0).max(5).default(2).describe('Ratings ≤ this are flagged lowStar.'),
  })
  .refine((r) => r.minRating === undefined || r.maxRating === undefined || r.minRating <= r.maxRating, {
    message: 'minRating must not be above maxRating',
    path: ['minRating'],
  });

export const reviewRemovedSchema = z.strictObject({
  ...base('review_removed', 'warning'),
  platforms: z
    .array(z.enum(['amazon', 'audible', 'goodreads']))
    .min(1)
    .optional(),
});

export const reviewCountDownSchema = z.strictObject({
  ...base('review_count_down', 'warning'),
  minDrop: z.number().int().min(1).default(1).describe('Fire when the count fell by at least this.'),
});

export type ReviewNewRule = z.output<typeof reviewNewSchema>;
export type ReviewRemovedRule = z.output<typeof reviewRemovedSchema>;
export type ReviewCountDownRule = z.output<typeof reviewCountDownSchema>;

/** This family's share of the rules a workspace gets when its config lists none. */
export const reviewDefaults: (
  | z.input<typeof reviewNewSchema>
  | z.input<typeof reviewRemovedSchema>
  | z.input<typeof reviewCountDownSchema>
)[] = [
  { id: 'new-review', kind: 'review_new' },
  { id: 'review-removed', kind: 'review_removed' },
  { id: 'review-count-down', kind: 'review_count_down' },
];

/**
 * Review events. The ids of one ok poll are compared with the previous one and with the reviews
 * remembered as missing (`review-track.ts`): a review is removed only after it is absent from
 * several complete answers, and one that comes back after that is restored, never new. Review text
 * is untrusted and goes into `facts` verbatim; channels escape it and may hide it when `lowStar` is
 * set. Titles never contain it.
 */

const PLATFORM: Record<ReviewDetail['platform'], string> = {
  amazon: 'Amazon',
  audible: 'Audible',
  goodreads: 'Goodreads',
};

function reviewSubject(obs: ReviewsObservation, review: ReviewSummary): AlertSubject {
  return { asin: review.asin, campaignId: obs.campaignId, reviewId: review.reviewId };
}

function reviewFacts(ctx: RuleContext, obs: ReviewsObservation, review: ReviewDetail) {
  return {
    campaignId: obs.campaignId,
    ...(ctx.campaignName === undefined ? {} : { campaignName: ctx.campaignName }),
    asin: review.asin,
    reviewId: review.reviewId,
    platform: review.platform,
    rating: review.rating,
    reviewer: review.reviewer,
    reviewTitle: review.title,
    body: review.body,
    url: review.url,
    publishedAt: review.publishedAt,
  };
}

const stars = (rating: number): string => `${rating}★`;
/** review_removed has no lowStarAt of its own: it uses review_new's default. */
const LOW_STAR_DEFAULT = 2;

export function evaluateReviewNew(
  scope: Scope,
  rule: ReviewNewRule,
  pass: ReviewPass,
  next: ReviewsObservation,
): void {
  for (const review of pass.arrived) {
    if (!appliesTo(rule, review.asin, null)) continue;
    if (rule.platforms !== undefined && !rule.platforms.includes(review.platform)) continue;
    if (rule.minRating !== undefined && review.rating < rule.minRating) continue;
    if (rule.maxRating !== undefined && review.rating > rule.maxRating) continue;
    emit(scope, rule, {
      kind: 'review_new',
      subject: reviewSubject(next, review),
      observation: review.reviewId,
      // Severity follows meaning: a low-star review (≤ lowStarAt, 2★ by default) is at least a warning.
      ...(review.rating <= rule.lowStarAt && rule.severity === 'info'
        ? { severity: 'warning' as const }
        : {}),
      title: `New ${stars(review.rating)} ${PLATFORM[review.platform]} review of ${bookName(scope.ctx, review.asin, null)} (campaign ${campaignLabel(scope.ctx, next.campaignId)})`,
      facts: {
        ...reviewFacts(scope.ctx, next, review),
        ...bookFacts(scope.ctx, review.asin, null),
        lowStar: review.rating <= rule.lowStarAt,
      },
      observedAt: next.observedAt,
    });
  }
}

/** The removal, and the review's return after it (`review_restored`), of one rule's reviews. */
export function evaluateReviewRemoved(
  scope: Scope,
  rule: ReviewRemovedRule,
  pass: ReviewPass,
  next: ReviewsObservation,
): void {
  const applies = (review: ReviewSummary) =>
    appliesTo(rule, review.asin, null) &&
    (rule.platforms === undefined || rule.platforms.includes(review.platform));
  for (const review of pass.removed) {
    if (!applies(review)) continue;
    // The snapshot and the rule state keep no review text: there is none to show or hide.
    const detail = { ...review, title: null, body: '', reviewer: '', url: null };
    emit(scope, rule, {
      kind: 'review_removed',
      subject: reviewSubject(next, review),
      observation: review.reviewId,
      title: `A ${stars(review.rating)} ${PLATFORM[review.platform]} review of ${bookName(scope.ctx, review.asin, null)} was removed (campaign ${campaignLabel(scope.ctx, next.campaignId)})`,
      // The flag keeps channels consistent with review_new's default.
      facts: { ...reviewFacts(scope.ctx, next, detail), lowStar: review.rating <= LOW_STAR_DEFAULT },
      observedAt: next.observedAt,
    });
  }
  for (const { review, removedAt } of pass.restored) {
    if (!applies(review)) continue;
    emit(scope, rule, {
      kind: 'review_restored',
      status: 'resolved',
      subject: reviewSubject(next, review),
      // One restore per removal: a review removed and restored again alerts again.
      observation: `${review.reviewId}:restored:${removedAt}`,
      title: `A ${stars(review.rating)} ${PLATFORM[review.platform]} review of ${bookName(scope.ctx, review.asin, null)} is back after its removal (campaign ${campaignLabel(scope.ctx, next.campaignId)})`,
      facts: {
        ...reviewFacts(scope.ctx, next, review),
        ...bookFacts(scope.ctx, review.asin, null),
        lowStar: review.rating <= LOW_STAR_DEFAULT,
        removedAt,
      },
      observedAt: next.observedAt,
    });
  }
}

export function evaluateReviewCountDown(
  scope: Scope,
  rule: ReviewCountDownRule,
  prev: BookObservation,
  next: BookObservation,
): void {
  if (!appliesTo(rule, next.asin, next.marketplace)) return;
  const before = prev.reviewCount;
  const after = next.reviewCount;
  // An unknown count is not zero: nothing to compare.
  if (before === null || after === null || before - after < rule.minDrop) return;
  emit(scope, rule, {
    kind: 'review_count_down',
    subject: { asin: next.asin, marketplace: next.marketplace },
    // The previous committed poll plus the new count: stable across a re-run of this poll.
    observation: `${prev.observedAt}:${before}->${after}`,
    title: `Review count of ${quote(next.title)} went down from ${groupDigits(before)} to ${groupDigits(after)} ${where(next.asin, next.marketplace)}`,
    facts: {
      asin: next.asin,
      marketplace: next.marketplace,
      bookTitle: next.title,
      before,
      after,
      delta: after - before,
      averageRating: next.averageRating,
    },
    observedAt: next.observedAt,
  });
}

const reviewRows = ({ facts: f }: { facts: ReviewFacts }, timeZone: string, locale?: string): FactRow[] =>
  rows((add) => add('Published', localTime(f.publishedAt, timeZone, locale)));
const reviewEmailRows = (
  { facts: f }: { facts: ReviewFacts },
  timeZone: string,
  locale?: string,
): FactRow[] =>
  emailRows(
    ['Rating', showStars(f.rating)],
    ['Platform', show(f.platform)],
    ['Reviewer', show(f.reviewer)],
    ['Campaign', show(f.campaignName === undefined ? f.campaignId : `${f.campaignName} (${f.campaignId})`)],
    ['Published', time(f.publishedAt, timeZone, locale)],
  );
const theReview = ({ facts }: { facts: ReviewFacts }): ReviewFacts => facts;

/** The review family's kinds as the renderers see them (registered in `kinds.ts`). */
export const reviewKinds = {
  review_new: {
    label: 'New review',
    noun: ['new review', 'new reviews'],
    rows: reviewRows,
    emailRows: reviewEmailRows,
    review: theReview,
  },
  review_removed: {
    label: 'Review removed',
    noun: ['removed review', 'removed reviews'],
    rows: reviewRows,
    emailRows: reviewEmailRows,
    review: theReview,
  },
  review_restored: {
    label: 'Review restored',
    noun: ['restored review', 'restored reviews'],
    rows: reviewRows,
    emailRows: (alert, zone, locale) => [
      ...reviewEmailRows(alert, zone, locale),
      ...emailRows(['Removed', time(alert.facts.removedAt, zone, locale)]),
    ],
    review: theReview,
  },
  review_count_down: {
    label: 'Review count went down',
    noun: ['review count drop', 'review count drops'],
    rows: ({ facts: f }) =>
      rows((add) => {
        add('Book', text(f.bookTitle));
        add('Reviews', `${count(f.before) ?? '?'} → ${count(f.after) ?? '?'}`);
        add('Average rating', num(f.averageRating)?.toFixed(1));
      }),
    emailRows: ({ facts: f }) =>
      emailRows(
        ['Reviews', change(show(f.before), show(f.after))],
        ['Average rating', show(f.averageRating)],
      ),
  },
} satisfies FamilyParts<'review_new' | 'review_removed' | 'review_restored' | 'review_count_down'>;

/** The review family's rules (registered in `kinds.ts`). Review events need two polls: nothing to seed. */
export const reviewJudges = {
  review_new: (scope, rule, _prev, next, pass) => {
    if (next.kind === 'reviews' && pass !== undefined) evaluateReviewNew(scope, rule, pass, next);
  },
  review_removed: (scope, rule, _prev, next, pass) => {
    if (next.kind === 'reviews' && pass !== undefined) evaluateReviewRemoved(scope, rule, pass, next);
  },
  review_count_down: (scope, rule, prev, next) => {
    const before = next.kind === 'book' ? sameKind(prev, next) : undefined;
    if (next.kind === 'book' && before !== undefined) evaluateReviewCountDown(scope, rule, before, next);
  },
} satisfies {
  review_new: Judge<ReviewNewRule>;
  review_removed: Judge<ReviewRemovedRule>;
  review_count_down: Judge<ReviewCountDownRule>;
};
