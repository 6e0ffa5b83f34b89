/**
 * "My books": the signed-in person's books by title, the rank now and its last change, and what is
 * firing now for each (since when, with a button that mutes the book's alerts of that kind for a
 * day: a silence on the person's own book, which members may set). Cards, not a table: they stack
 * on a phone.
 */
import type { Person } from '../../config/schema.ts';
import type { AlertLogEntry } from '../../history/alert-log.ts';
import type { AlertKind } from '../../model/alert.ts';
import { rank } from '../../util/format.ts';
import { html, type SafeHtml, timeText } from '../html.ts';
import { csrfField, type PageContext, page } from '../layout.ts';

/** What the page shows (built by `console/my-books.ts`). */
export interface FiringNow {
  id: string;
  title: string;
  kind: AlertKind;
  severity: AlertLogEntry['severity'];
  sinceMs: number;
}

export interface MyBook {
  workspace: string;
  asin: string;
  marketplace: string;
  title?: string;
  author?: string;
  bsr: number | null | undefined;
  /** The rank before the last change and when it changed (hourly points of the snapshot). */
  change?: { from: number | null; to: number | null; atMs: number };
  /** BSR over the 7 days to the last poll as block characters, up is better (absent without points). */
  trend?: string;
  firing: FiringNow[];
  /** New reviews alerted in the last 7 days (the alert log's review_new entries). */
  reviewsThisWeek: number;
  /** The book's newest alerts, whatever their state. */
  latest: { id: string; title: string; atMs: number }[];
}

function bookHref(book: MyBook): string {
  return `/books/${encodeURIComponent(book.workspace)}/${encodeURIComponent(book.asin)}/${encodeURIComponent(book.marketplace)}`;
}

function muteForm(ctx: PageContext, book: MyBook, firing: FiringNow): SafeHtml {
  return html`<form method="post" action="/silences" class="inline">${csrfField(ctx)}
<input type="hidden" name="workspace" value="${book.workspace}">
<input type="hidden" name="asin" value="${book.asin}">
<input type="hidden" name="kind" value="${firing.kind}">
<input type="hidden" name="duration" value="1d">
<input type="hidden" name="reason" value="muted from My books">
<button type="submit" class="secondary" aria-label="Mute for a day: ${firing.kind} of ${book.title ?? book.asin}">Mute for a day</button></form>`;
}

function firingList(ctx: PageContext, book: MyBook): SafeHtml {
  if (book.firing.length === 0) return html`<p><span class="pill ok">nothing firing</span></p>`;
  return html`<ul class="items">${book.firing.map(
    (f) =>
      html`<li class="wrap"><span class="pill ${f.severity}">${f.severity}</span> <a href="/alerts/${encodeURIComponent(f.id)}">${f.title}</a> <span class="mute">since ${timeText(f.sinceMs)}</span> ${muteForm(ctx, book, f)}</li>`,
  )}</ul>`;
}

function bookCard(ctx: PageContext, book: MyBook): SafeHtml {
  const name = book.title ?? book.asin;
  const change =
    book.change === undefined
      ? html`<span class="mute">no change in the kept points</span>`
      : html`${rank(book.change.from)} → ${rank(book.change.to)} <span class="mute">at ${timeText(book.change.atMs)}</span>`;
  return html`<section class="card" aria-label="${name}">
<h2><a href="${bookHref(book)}">${name}</a></h2>
<p class="mute">${book.author === undefined ? '' : html`${book.author} · `}${book.asin} · ${book.marketplace} · ${book.workspace}</p>
<p>Best-seller rank now: <strong>${book.bsr === undefined ? 'not polled yet' : rank(book.bsr)}</strong></p>
<p>Last change: ${change}</p>
<p>New reviews in 7 days: ${book.reviewsThisWeek}</p>
${book.trend === undefined ? '' : html`<p>7 days to the last poll: <span class="spark" aria-hidden="true">${book.trend}</span><span class="sr-only">a line of the best-seller rank over the 7 days to the last poll, up is better</span></p>`}
<h3>Firing now</h3>
${firingList(ctx, book)}
${book.latest.length === 0 ? '' : html`<h3>Latest alerts</h3><ul class="items">${book.latest.map((a) => html`<li class="wrap"><a href="/alerts/${encodeURIComponent(a.id)}">${a.title}</a> <span class="mute">${timeText(a.atMs)}</span></li>`)}</ul>`}
</section>`;
}

export function myBooksPage(ctx: PageContext, view: { person?: Person; books: MyBook[] }): string {
  if (view.person === undefined)
    return page(
      'My books',
      ctx,
      html`<p>You signed in with the console token, which belongs to no person: there are no books of yours. People sign in with their own token or an emailed link (docs/people.md).</p><p><a href="/">The overview</a></p>`,
    );
  const firing = view.books.reduce((n, b) => n + b.firing.length, 0);
  return page(
    'My books',
    ctx,
    html`<p>${view.person.name}: ${view.books.length} book${view.books.length === 1 ? '' : 's'} in your subscriptions, ${firing} condition${firing === 1 ? '' : 's'} firing now. <a href="/">The overview</a></p>
${view.books.length === 0 ? html`<p class="mute">Your subscriptions name no configured book.</p>` : html`<div class="cards">${view.books.map((b) => bookCard(ctx, b))}</div>`}`,
  );
}
