/**
 * Renders a group of alerts as an email (subject, plain text, HTML, headers). Pure: the SMTP
 * channel and the outbox render the same way. Facts are untrusted where they come from the public
 * (review text, reviewer, book titles, keywords): the text part keeps them as they are (only
 * truncated), the HTML part escapes every one of them and isolates its direction (`<bdi>`), so a
 * right-to-left review cannot reorder the layout around it.
 */
import { createHash } from 'node:crypto';
import type { Alert, AlertKind } from '../../model/alert.ts';
import { MAX, show, time, truncateText } from '../../rules/kind-parts.ts';
import { partsOf } from '../../rules/kinds.ts';
import { stripBidi } from '../../util/bidi.ts';
import { html, type SafeHtml } from '../../util/html.ts';
import { oneLine } from '../../util/one-line.ts';
import type { AlertLinks, OutgoingMessage } from '../notifier.ts';
import { EMAIL_STYLE as S, SEVERITY_COLOR } from './email-style.ts';
import { snoozeCommand, whyLines } from './email-why.ts';
import { httpUrl } from './plain.ts';
import { bookUrl, isSampleAlert, KIND_LABEL } from './text.ts';

export { truncateText } from '../../rules/kind-parts.ts';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** Listed alerts per message: beyond this an email gets hard to read and slow to open. */
export const MAX_LISTED_ALERTS = 200;
const SUBJECT_MAX = 120;

/** Product page on the alert's own marketplace; none when the marketplace is unknown (reviews). */
export function amazonProductUrl(asin: unknown, marketplace: unknown): string | undefined {
  if (typeof asin !== 'string' || typeof marketplace !== 'string') return;
  return bookUrl(asin, marketplace);
}

/** Only http(s) URLs become links: `javascript:`, `data:` and the like stay visible text. */
export function safeHttpUrl(value: unknown): string | undefined {
  return typeof value === 'string' ? httpUrl(value)?.href : undefined;
}

/** A token safe in a Message-ID and a file name; ids that need changing get a hash so they stay unique. */
export function messageToken(messageId: string): string {
  if (/^[A-Za-z0-9_-]{1,128}$/.test(messageId)) return messageId;
  const hash = createHash('sha256').update(messageId).digest('hex').slice(0, 16);
  return `${messageId.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 80)}-${hash}`;
}

function workspaces(alerts: readonly Alert[]): string[] {
  return [...new Set(alerts.map((a) => a.workspace))];
}

export function emailSubject(message: OutgoingMessage): string {
  const { alerts, totalCount } = message;
  const first = alerts[0];
  if (first === undefined) return 'shelfwatch: no alerts';
  if (alerts.length === 1 && totalCount <= 1) return truncateText(oneLine(first.title), SUBJECT_MAX);
  const counts = new Map<AlertKind, number>();
  for (const alert of alerts) counts.set(alert.kind, (counts.get(alert.kind) ?? 0) + 1);
  const parts = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${n} ${partsOf(kind).noun[n === 1 ? 0 : 1]}`);
  const unlisted = Math.max(0, totalCount - alerts.length);
  if (unlisted > 0) parts.push(`${unlisted} more`);
  const total = Math.max(totalCount, alerts.length);
  const spaces = workspaces(alerts);
  const where = spaces.length === 1 ? `workspace ${spaces[0]}` : `workspaces ${spaces.join(', ')}`;
  return truncateText(oneLine(`${total} alerts: ${parts.join(', ')} (${where})`), SUBJECT_MAX);
}

type Row = readonly [label: string, value: string];
type Link = { label: string; href: string };
interface AlertView {
  alert: Alert;
  rows: Row[];
  review?: { title: string; body: string } | 'hidden';
  links: Link[];
}

function view(
  alert: Alert,
  hideLowStarText: boolean,
  timeZone: string,
  locale?: string,
  mute?: AlertLinks,
): AlertView {
  const f = alert.facts;
  const parts = partsOf(alert.kind);
  const rows: Row[] = [];
  // Every row is one line (a reviewer's name, a book title): only the review body keeps its lines.
  const add = (label: string, value: string) => rows.push([label, oneLine(value)]);
  // The book, for the kinds that carry one (the fact types say which).
  const asin = ('asin' in f ? f.asin : undefined) ?? alert.subject.asin;
  const marketplace = ('marketplace' in f ? f.marketplace : undefined) ?? alert.subject.marketplace;
  const title = 'bookTitle' in f && typeof f.bookTitle === 'string' ? f.bookTitle : undefined;
  // Title first, the ASIN and marketplace beside it: an ASIN alone only when no title is known.
  const where = typeof marketplace === 'string' ? [asin, marketplace] : [asin];
  if (title !== undefined)
    add('Book', typeof asin === 'string' ? `${show(title)} (${where.join(', ')})` : show(title));
  if ('author' in f && typeof f.author === 'string') add('Author', show(f.author));
  if (title === undefined && typeof asin === 'string')
    add('ASIN', typeof marketplace === 'string' ? `${asin} (${marketplace})` : asin);
  for (const row of parts.emailRows(alert, timeZone, locale)) add(row.label, row.value);
  add('Observed', time(alert.observedAt, timeZone, locale));
  const snooze = snoozeCommand(alert);
  if (snooze !== undefined) add('Snooze', snooze);
  const links: Link[] = [];
  const product = amazonProductUrl(asin, marketplace);
  if (product !== undefined)
    links.push({ label: `View on ${new URL(product).hostname.slice(4)}`, href: product });
  if (mute?.critical === true) links.push({ label: 'Why this cannot be muted', href: mute.muteKind });
  else if (mute !== undefined) {
    if (mute.muteBook !== undefined) links.push({ label: 'Mute this book for a day', href: mute.muteBook });
    links.push({ label: `Mute "${KIND_LABEL[alert.kind]}" alerts`, href: mute.muteKind });
  }
  const out: AlertView = { alert, rows, links };
  const review = parts.review?.(alert);
  if (review !== undefined) {
    const { url } = review;
    const href = safeHttpUrl(url);
    if (href !== undefined) links.push({ label: 'Read the review', href });
    else if (typeof url === 'string' && url !== '') add('Review URL', show(url));
    out.review =
      hideLowStarText && review.lowStar === true
        ? 'hidden'
        : {
            title: truncateText(oneLine(String(review.reviewTitle ?? '')), MAX.reviewTitle),
            body: truncateText(String(review.body ?? ''), MAX.body),
          };
  }
  return out;
}

const HIDDEN_NOTE = 'Text hidden: low-star review (the rating is shown above).';

function textOf(v: AlertView): string {
  const { alert } = v;
  const lines = [
    `[${isSampleAlert(alert) ? 'TEST' : `${alert.severity.toUpperCase()}${alert.status === 'resolved' ? ', resolved' : ''}`}] ${truncateText(oneLine(alert.title), MAX.title)}`,
  ];
  for (const [label, value] of v.rows) lines.push(`  ${label}: ${value}`);
  if (v.review === 'hidden') lines.push(`  ${HIDDEN_NOTE}`);
  else if (v.review !== undefined) {
    if (v.review.title !== '') lines.push(`  Review title: ${v.review.title}`);
    // Every line of the body is indented (and quoted), so a review cannot print a line that reads
    // like an alert of its own in the plain-text part.
    if (v.review.body !== '')
      lines.push('  Review:', ...v.review.body.split(/\r?\n/).map((line) => `    > ${line}`));
  }
  for (const link of v.links) lines.push(`  ${link.label}: ${link.href}`);
  return lines.join('\n');
}

/** Untrusted text in its own direction (`<bdi>`), its line breaks kept. */
const isolate = (text: string): SafeHtml =>
  html`<bdi>${text.split(/\r?\n/).map((line, i) => (i === 0 ? line : html`<br>${line}`))}</bdi>`;

function htmlOf(v: AlertView): SafeHtml {
  const { alert } = v;
  const color = alert.status === 'resolved' ? SEVERITY_COLOR.resolved : SEVERITY_COLOR[alert.severity];
  const label = isSampleAlert(alert)
    ? 'test'
    : `${alert.severity}${alert.status === 'resolved' ? ' · resolved' : ''}`;
  const rows = v.rows.map(
    ([k, value]) =>
      html`<tr><td style="${S.factName}">${k}</td><td style="${S.factValue}">${isolate(value)}</td></tr>`,
  );
  let review: SafeHtml | undefined;
  if (v.review === 'hidden') review = html`<p style="${S.note}">${HIDDEN_NOTE}</p>`;
  else if (v.review !== undefined && (v.review.title !== '' || v.review.body !== '')) {
    const title =
      v.review.title === '' ? '' : html`<p style="${S.quoteTitle}">${isolate(v.review.title)}</p>`;
    review = html`<blockquote style="${S.quote}">${title}<div dir="auto">${isolate(v.review.body)}</div></blockquote>`;
  }
  const links =
    v.links.length === 0
      ? ''
      : html`<p style="${S.links}">${v.links.map((l, i) => html`${i === 0 ? '' : ' · '}<a href="${l.href}" style="${S.link}">${l.label}</a>`)}</p>`;
  return html`<div style="${S.card};border-left:4px solid ${color}"><p style="${S.cardLabel};color:${color}">${label}</p><p style="${S.cardTitle}">${isolate(truncateText(oneLine(alert.title), MAX.title))}</p><table role="presentation" style="${S.facts}">${rows}</table>${review}${links}</div>`;
}

/** Message headers: a stable Message-ID makes a re-sent message recognisable as the same one. */
export function emailHeaders(message: OutgoingMessage): Record<string, string> {
  return {
    'Message-ID': `<${messageToken(message.messageId)}@shelfwatch>`,
    'X-Shelfwatch-Message-Id': oneLine(message.messageId),
    'X-Shelfwatch-Workspace': workspaces(message.alerts).join(', '),
    'Auto-Submitted': 'auto-generated',
    // Keeps Exchange/Outlook out-of-office replies from answering an alert.
    'X-Auto-Response-Suppress': 'All',
  };
}

export function renderAlertEmail(
  message: OutgoingMessage,
  opts: { from: string; to: readonly string[]; channelId?: string },
): RenderedEmail {
  const subject = emailSubject(message);
  const listed = message.alerts.slice(0, MAX_LISTED_ALERTS);
  const more =
    message.alerts.length - listed.length + Math.max(0, message.totalCount - message.alerts.length);
  const views = listed.map((alert) =>
    view(
      alert,
      message.hideLowStarText,
      message.timeZone ?? 'UTC',
      message.locale,
      message.links?.alerts[alert.fingerprint],
    ),
  );
  const footerLinks: Link[] =
    message.links === undefined
      ? []
      : [
          { label: 'Unsubscribe this channel', href: message.links.unsubscribe },
          { label: 'Manage subscriptions and silences', href: message.links.manage },
        ];
  const moreLine = more > 0 ? `…and ${more} more ${more === 1 ? 'alert' : 'alerts'}.` : '';
  const footer = `Sent by shelfwatch from ${opts.from} to ${opts.to.join(', ')}.`;
  const why = whyLines(message.alerts, opts.channelId);
  const moreText = moreLine === '' ? '' : `\n${moreLine}\n`;
  const linkLines = footerLinks.map((l) => `${l.label}: ${l.href}`);
  const text = `${subject}\n\n${views.map(textOf).join('\n\n')}\n${moreText}\n-- \n${[...linkLines, ...why, footer].join('\n')}\n`;
  const footerHtml =
    footerLinks.length === 0
      ? ''
      : html`<p style="${S.footerLinks}">${footerLinks.map((l, i) => html`${i === 0 ? '' : ' · '}<a href="${l.href}" style="${S.link}">${l.label}</a>`)}</p>`;
  const page = html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${subject}</title></head><body style="${S.body}"><div style="${S.page}"><h1 style="${S.h1}">${isolate(subject)}</h1>${views.map(htmlOf)}${moreLine ? html`<p style="${S.strong}">${moreLine}</p>` : ''}${footerHtml}${[...why, footer].map((line, i) => html`<p style="${S.muted};margin:${i === 0 ? 16 : 4}px 0 0">${line}</p>`)}</div></body></html>`;
  return { subject, text, html: page.value, headers: emailHeaders(message) };
}

/**
 * A rendered email as nodemailer's message fields, for SMTP and for the outbox's `.eml` alike. Our
 * Message-ID header goes in `messageId`, where nodemailer takes it, rather than as a second header.
 */
export function mailFields(email: RenderedEmail, from: string, to: string[]) {
  const { 'Message-ID': messageId, ...headers } = email.headers;
  // Where an alert email leaves (SMTP, the outbox's .eml): no bidi control in any part.
  const [subject, text, htmlPart] = [email.subject, email.text, email.html].map(stripBidi);
  return { from, to, subject, text, html: htmlPart, messageId, headers };
}
