/**
 * The text of an alert for channels with a small markup (Discord, Teams, Telegram, ntfy): a title,
 * then detail lines (rating and reviewer, review title, facts, sparkline, the quoted body), and a
 * link kept apart so each channel can place it its own way (an embed's url, an action, `click`).
 *
 * Every untrusted piece goes through the channel's `esc`, which escapes and cuts in one pass
 * (`truncateMapped`): the size limit holds for the final text. Bidirectional overrides are removed
 * first: in a chat message they would make the text read differently than it is.
 */

import type { Alert } from '../../model/alert.ts';
import { partsOf } from '../../rules/kinds.ts';
import { stripBidi } from '../../util/bidi.ts';
import { groupDigits } from '../../util/format.ts';
import { oneLine } from '../../util/one-line.ts';
import type { AlertLinks, OutgoingMessage } from '../notifier.ts';
import { reviewMeta, reviewOf } from './review-view.ts';
import { sparklineFor } from './sparkline.ts';
import {
  alertMark,
  amazonDomain,
  andMore,
  bookUrl,
  factRows,
  KIND_LABEL,
  kindLabel,
  muteLinkOf,
  truncate,
  truncateMapped,
} from './text.ts';

/** A channel's way to show untrusted text. */
export interface Markup {
  /** One grapheme of untrusted text, escaped for the channel. */
  escape(grapheme: string): string;
  /** Emphasis around already-escaped text. */
  bold(escaped: string): string;
  /** Quote-mark for one line of a review body (already escaped), or the line as it is. */
  quote(escaped: string): string;
  /**
   * A link inside the details (a checked http(s) URL, a trusted label), for the book's store page
   * when the message's own link goes to the review. Channels whose text cannot hold one leave it out.
   */
  link?(url: string, label: string): string;
}

/** Escapes and cuts `text` to `max` characters of output; bidi overrides removed. */
export function escapeCut(markup: Markup, text: string, max: number): string {
  return truncateMapped(stripBidi(text), max, markup.escape);
}

export interface PlainAlert {
  /** The severity mark (🔴, ✅…): trusted. */
  mark: string;
  /** The title, escaped and cut, on one line. */
  title: string;
  /** Detail lines, escaped, joined with "\n". */
  details: string;
  /** An https link to the review or the book, when there is one; not escaped (place it as a URL). */
  url: string | undefined;
}

export interface PlainOptions {
  hideLowStar: boolean;
  titleChars: number;
  /** Room for the details, all lines together. */
  detailChars: number;
  /** Room for a review body (less in a group, so several reviews fit). */
  bodyChars: number;
  /** Zone of the times shown (the message's `timeZone`; UTC when absent). */
  timeZone?: string | undefined;
  /** Locale of the dates shown (the message's `locale`; en-GB when absent). */
  locale?: string | undefined;
  /** This alert's mute links (the message's `links`), shown as one line at the end. */
  mute?: AlertLinks | undefined;
}

const FACT_CHARS = 300;
const REVIEW_TITLE_CHARS = 250;
const REVIEWER_CHARS = 80;
const URL_CHARS = 1_000;

/** `raw` parsed as an http(s) URL, or nothing (not a URL, or another scheme such as javascript:). */
export function httpUrl(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
}

/** An http(s) URL as the URL parser writes it (spaces and brackets encoded), or nothing. */
export function safeUrl(raw: string | undefined): string | undefined {
  const url = raw === undefined ? undefined : httpUrl(raw);
  if (url === undefined) return undefined;
  return url.href.length <= URL_CHARS ? url.href : undefined;
}

export function renderPlainAlert(alert: Alert, markup: Markup, options: PlainOptions): PlainAlert {
  const cut = (text: string, max: number) => escapeCut(markup, text, max);
  const title = cut(oneLine(alert.title), options.titleChars);
  const lines: string[] = [];
  // The mute link is never cut (a cut link leads elsewhere): its room is kept first.
  const muted = muteLinkOf(options.mute);
  const safeMute = muted === undefined ? undefined : safeUrl(muted.url);
  const muteLine =
    muted === undefined || safeMute === undefined
      ? ''
      : markup.link !== undefined
        ? markup.link(safeMute, muted.label)
        : `${muted.label}: ${safeMute}`;
  let room =
    options.detailChars -
    (muteLine === '' || muteLine.length + 1 > options.detailChars ? 0 : muteLine.length + 1);
  const push = (line: string): void => {
    if (line === '' || line.length + 1 > room) return;
    lines.push(line);
    room -= line.length + 1;
  };
  const review = reviewOf(alert);
  if (review !== undefined) {
    const meta = reviewMeta(review);
    if (options.hideLowStar && review.lowStar) {
      push(cut(`${meta} · text hidden (low-star review)`, room));
    } else {
      const by = review.reviewer === undefined ? '' : ` · by ${review.reviewer}`;
      push(cut(`${meta}${by}`, Math.min(room, meta.length + 5 + REVIEWER_CHARS)));
      if (review.title !== undefined)
        push(markup.bold(cut(review.title, Math.min(room, REVIEW_TITLE_CHARS))));
    }
  }
  for (const row of factRows(alert, options.timeZone, options.locale)) {
    push(
      `${markup.bold(cut(row.label, 60))}: ${cut(row.value, Math.min(room - row.label.length - 8, FACT_CHARS))}`,
    );
  }
  const spark = sparklineFor(alert);
  if (spark !== undefined) {
    const label = partsOf(alert.kind).seriesLabel ?? 'Rank (taller = better)';
    push(`${label}: ${spark}`);
  }
  const { asin, marketplace } = alert.subject;
  const store = asin === undefined ? undefined : safeUrl(bookUrl(asin, marketplace));
  const reviewUrl = safeUrl(review?.url);
  // The message's link opens the review: the book's page is then a line of its own, when the
  // alert names its marketplace (a campaign's reviews do not: the US store would be a guess).
  if (
    reviewUrl !== undefined &&
    marketplace !== undefined &&
    store !== undefined &&
    markup.link !== undefined
  ) {
    push(markup.link(store, `Book on ${amazonDomain(marketplace) ?? 'Amazon'}`));
  }
  if (review?.body !== undefined && !(options.hideLowStar && review.lowStar)) {
    const body = review.body
      .replace(/\r\n?/g, '\n')
      .replace(/\n{2,}/g, '\n')
      .trim();
    // Cut first (escaped), then quote each line: the quote marks are ours, never the reviewer's.
    const text = cut(body, Math.min(room - 8, options.bodyChars));
    const quoted = text.split('\n').map(markup.quote).join('\n');
    if (text !== '' && quoted.length + 1 <= room) push(quoted);
  }
  if (muteLine !== '' && muteLine.length + 1 <= options.detailChars) lines.push(muteLine);
  const url = reviewUrl ?? store;
  return { mark: alertMark(alert), title, details: lines.join('\n'), url };
}

/** The domain a book link goes to, for a link label. */
export function bookDomain(alert: Alert): string | undefined {
  return alert.subject.asin === undefined ? undefined : amazonDomain(alert.subject.marketplace);
}

/** How many alerts the message stands for (`totalCount`, never fewer than it lists). */
export function alertCount(message: OutgoingMessage): number {
  return Math.max(message.totalCount, message.alerts.length);
}

/** A heading from trusted text only (kind labels, counts). */
export function messageHeading(message: OutgoingMessage): string {
  const count = alertCount(message);
  const first = message.alerts[0];
  if (count <= 1 && first !== undefined) return `${alertMark(first)} ${kindLabel(first)}`;
  const kinds = new Set(message.alerts.map((a) => a.kind));
  const [only] = kinds;
  const what = kinds.size === 1 && only !== undefined ? ` · ${KIND_LABEL[only]}` : '';
  return `🔔 ${groupDigits(count)} alerts${what}`;
}

/**
 * What one message of a channel holds: how many alerts and how much in all, and the room of each
 * alert's text, `[alone, each of a group]` (less in a group, so several fit).
 */
export interface AlertFit {
  maxAlerts: number;
  totalChars: number;
  titleChars: number;
  detailChars: readonly [alone: number, grouped: number];
  bodyChars: readonly [alone: number, grouped: number];
}

/**
 * The message's alerts rendered as plain alerts (with its reader's settings) and built into the
 * channel's items, in order, while they fit `maxAlerts` and `totalChars` (measured by `size`);
 * `moreLine` is the "…and N more" of the rest (counting those the pipeline already left out).
 */
export function fitPlainAlerts<T>(
  message: OutgoingMessage,
  markup: Markup,
  fit: AlertFit,
  build: (text: PlainAlert, alert: Alert) => T,
  size: (item: T) => number,
): { shown: T[]; more: number; moreLine: string | undefined } {
  const room = message.alerts.length > 1 ? 1 : 0;
  const options: PlainOptions = {
    hideLowStar: message.hideLowStarText,
    titleChars: fit.titleChars,
    detailChars: fit.detailChars[room],
    bodyChars: fit.bodyChars[room],
    timeZone: message.timeZone,
    locale: message.locale,
  };
  const shown: T[] = [];
  let used = 0;
  for (const alert of message.alerts) {
    if (shown.length >= fit.maxAlerts) break;
    const mute = message.links?.alerts[alert.fingerprint];
    const item = build(renderPlainAlert(alert, markup, { ...options, mute }), alert);
    const n = size(item);
    if (used + n > fit.totalChars && shown.length > 0) break;
    shown.push(item);
    used += n;
  }
  const more = alertCount(message) - shown.length;
  return { shown, more, moreLine: more > 0 ? andMore(more) : undefined };
}

/** Every string in a JSON-like value cut to `max` characters, bidi overrides removed. */
export function cutStrings(value: unknown, max: number): unknown {
  if (typeof value === 'string') return truncate(stripBidi(value), max);
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, max));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, max)]));
  }
  return value;
}
