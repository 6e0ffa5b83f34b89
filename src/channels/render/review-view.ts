/**
 * The review an alert is about, as every channel shows it: its stars, platform, reviewer, title,
 * body and link, and whether its text is hidden as low-star.
 */
import type { Alert, AlertKind } from '../../model/alert.ts';
import { partsOf } from '../../rules/kinds.ts';
import { stars } from '../../util/format.ts';
import { oneLine } from '../../util/one-line.ts';
import { num, text } from './text.ts';

export interface ReviewView {
  rating: number | undefined;
  platform: string | undefined;
  reviewer: string | undefined;
  title: string | undefined;
  body: string | undefined;
  url: string | undefined;
  lowStar: boolean;
}

const PLATFORM: Record<string, string> = { amazon: 'Amazon', audible: 'Audible', goodreads: 'Goodreads' };
/** For alerts without a `lowStar` fact (removals): the rules' default threshold. */
const DEFAULT_LOW_STAR_AT = 2;

/** The kinds that are about one review (and carry its facts): their parts say so. */
export function reviewKind(kind: AlertKind): boolean {
  return partsOf(kind).review !== undefined;
}

/** The review an alert is about (a kind of the review family), or undefined. */
export function reviewOf(alert: Alert): ReviewView | undefined {
  const f = partsOf(alert.kind).review?.(alert);
  if (f === undefined) return undefined;
  const rating = num(f.rating);
  const platform = text(f.platform);
  const line = (v: unknown) => text(typeof v === 'string' ? oneLine(v) : v);
  return {
    rating,
    platform: platform === undefined ? undefined : (PLATFORM[platform] ?? platform),
    // Names and titles are one line each; only the body keeps its lines (quoted by each channel).
    reviewer: line(f.reviewer),
    title: line(f.reviewTitle),
    body: text(f.body),
    url: text(f.url),
    // Hiding hurtful text errs on the side of hiding: a removal carries no lowStar fact.
    lowStar:
      typeof f.lowStar === 'boolean' ? f.lowStar : rating !== undefined && rating <= DEFAULT_LOW_STAR_AT,
  };
}

/** A review's stars and platform, `★★☆☆☆ · amazon`, whichever it has. */
export function reviewMeta(review: ReviewView): string {
  return [review.rating === undefined ? undefined : stars(review.rating), review.platform]
    .filter((s) => s !== undefined)
    .join(' · ');
}
