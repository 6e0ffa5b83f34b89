/**
 * Whether the book page hides a review's text: the same decision delivery makes for the alert
 * that review raises. A review_new rule flags it `lowStar` (rating ≤ the rule's `lowStarAt`), and a
 * channel leaves the text out when a route that carries the alert there sets `hideLowStarText`
 * (`deliver/routing.ts`). The page has no channel of its own, so it hides the text when any route
 * would: someone asked not to read those words, and the console is one more place to read them.
 */
import type { Alert } from '../model/alert.ts';
import type { ReviewSummary } from '../model/observation.ts';
import type { ReviewNewRule, RuleConfig } from '../rules/config.ts';
import { appliesTo } from '../rules/scope.ts';

/** What review_new flags without a rule of its own (its schema's default), as the renderers do. */
const DEFAULT_LOW_STAR_AT = 2;
const DEFAULT_SEVERITY: Alert['severity'] = 'info';

type Router = (alert: Alert) => readonly { channelId: string; hideLowStarText: boolean }[];

function emits(rule: ReviewNewRule, review: ReviewSummary): boolean {
  if (!appliesTo(rule, review.asin, null)) return false;
  if (rule.platforms !== undefined && !rule.platforms.includes(review.platform)) return false;
  if (rule.minRating !== undefined && review.rating < rule.minRating) return false;
  return rule.maxRating === undefined || review.rating <= rule.maxRating;
}

/**
 * For one workspace: true when the routes hide the review's text. A review no rule alerts on is
 * judged as review_new's defaults would judge it, so switching a rule off shows no more than before.
 */
export function reviewTextHider(
  workspace: string,
  rules: readonly RuleConfig[],
  route: Router,
): (review: ReviewSummary) => boolean {
  const reviewRules = rules.filter((r): r is ReviewNewRule => r.kind === 'review_new');
  return (review) => {
    const matching = reviewRules.filter((rule) => emits(rule, review));
    const judged =
      matching.length > 0
        ? matching.map((r) => ({ lowStarAt: r.lowStarAt, severity: r.severity, ruleId: r.id }))
        : [{ lowStarAt: DEFAULT_LOW_STAR_AT, severity: DEFAULT_SEVERITY, ruleId: 'review_new' }];
    return judged.some(({ lowStarAt, severity, ruleId }) => {
      if (review.rating > lowStarAt) return false;
      // Only what the router matches on matters here (workspace, kind, severity, ASIN and its author).
      const alert: Alert = {
        fingerprint: '',
        workspace,
        ruleId,
        kind: 'review_new',
        severity,
        status: 'firing',
        subject: { asin: review.asin, reviewId: review.reviewId },
        title: '',
        facts: { lowStar: true },
        observedAt: review.publishedAt,
      };
      return route(alert).some((target) => target.hideLowStarText);
    });
  };
}
