/** The book page's comps and reviews sections (kept apart so book.ts stays about ranks and alerts). */
import type { BookObservation, ReviewDetail } from '../../model/observation.ts';
import { compAhead, compBehind, compRatio, MAX_COMPS_JUDGED } from '../../rules/comps.ts';
import { stars } from '../../util/format.ts';
import { html, numberText, type SafeHtml, timeText } from '../html.ts';

const REVIEWS_SHOWN = 100;

type Standing = { label: 'ahead' | 'behind' | 'level' | 'not comparable'; pill: string };

/** Where a comp stands against the book, in comp_overtook's terms (a ratio of BSRs with a margin). */
function standing(bookBsr: number | null, compBsr: number | null, margin: number): Standing {
  const ratio = compRatio(bookBsr, compBsr);
  if (ratio === null) return { label: 'not comparable', pill: 'unknown' };
  if (compAhead(ratio, margin)) return { label: 'ahead', pill: 'warning' };
  if (compBehind(ratio, margin)) return { label: 'behind', pill: 'ok' };
  return { label: 'level', pill: 'level' };
}

/**
 * The comparable titles the book's last stored answer listed, with their BSR against the book's.
 * From the snapshot only: the console asks the API nothing.
 */
export function compsSection(snapshot: BookObservation | undefined, margin: number): SafeHtml {
  if (snapshot === undefined) return html`<p class="mute">Comps are shown once the book has been polled.</p>`;
  const comps = (snapshot.compTitles ?? []).filter((c) => c.asin !== snapshot.asin);
  if (comps.length === 0)
    return html`<p class="mute">The book's last answer listed no comparable titles.</p>`;
  const bookBsr = snapshot.bsr;
  return html`<table class="comps"><caption>Comparable titles as of ${timeText(snapshot.observedAt)}; this book is ${bookBsr === null ? 'unranked' : `#${numberText(bookBsr)}`}</caption>
<thead><tr><th scope="col">Comp</th><th scope="col">ASIN</th><th scope="col">BSR</th><th scope="col">Against this book</th></tr></thead><tbody>${comps
    .slice(0, MAX_COMPS_JUDGED)
    .map((comp) => {
      const where = standing(bookBsr, comp.bsr, margin);
      const ratio = compRatio(bookBsr, comp.bsr);
      return html`<tr><td class="text">${comp.title}</td><td>${comp.asin}</td><td>${comp.bsr === null ? 'unranked' : `#${numberText(comp.bsr)}`}</td><td><span class="pill ${where.pill}">${where.label}</span>${ratio === null ? '' : html` <span class="mute">(BSR ${ratio < 0.1 ? ratio.toPrecision(2) : ratio.toFixed(2)}× this book's)</span>`}</td></tr>`;
    })}</tbody></table>
<p class="mute">Ahead: the comp's BSR is better than this book's by more than ${Math.round(margin * 100)}% (the comp_overtook margin); behind: worse by as much.</p>`;
}

/**
 * Reviews with platform and rating. Low-star text the routes hide in alerts is hidden here too
 * (`hidden(review)`, see review-text.ts); snapshots keep no review text at all, so the others say so.
 */
export function reviewsSection(
  reviews: readonly ReviewDetail[],
  hidden: (review: ReviewDetail) => boolean,
): SafeHtml {
  if (reviews.length === 0) return html`<p class="mute">No reviews stored for this book.</p>`;
  const shown = reviews.slice(0, REVIEWS_SHOWN);
  const anyHidden = shown.some(hidden);
  const text = (review: ReviewDetail) => {
    if (hidden(review)) return html`<span class="pill hidden">text hidden by your routes</span>`;
    if (review.body === '') return html`<span class="mute">not kept</span>`;
    return html`<span class="text">${review.body}</span>`;
  };
  return html`<table class="reviews"><thead><tr><th scope="col">Published</th><th scope="col">Platform</th><th scope="col">Rating</th><th scope="col">Text</th></tr></thead><tbody>${shown.map(
    (r) =>
      html`<tr><td>${timeText(r.publishedAt)}</td><td>${r.platform}</td><td><span aria-hidden="true">${stars(r.rating)}</span> <span class="mute">(${r.rating} of 5)</span></td><td>${text(r)}</td></tr>`,
  )}</tbody></table>
<p class="mute">shelfwatch keeps no review text (snapshots keep summaries only).${anyHidden ? ' Low-star reviews whose text your routes leave out of alerts (hideLowStarText) are marked “text hidden by your routes”.' : ''}</p>`;
}
