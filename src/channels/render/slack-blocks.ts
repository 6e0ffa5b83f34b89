/**
 * Renders an outgoing message as a Slack Block Kit payload: a header, one mrkdwn section per alert,
 * and a context block "…and N more" when a group does not fit. Every limit is checked on the final
 * (escaped) strings, because Slack rejects the whole message (400 invalid_blocks) when one block is
 * over, and a rejected message is one nobody sees.
 */

import type { ContextBlock, HeaderBlock, MrkdwnElement, PlainTextElement, SectionBlock } from '@slack/types';
import type { Alert } from '../../model/alert.ts';
import { partsOf } from '../../rules/kinds.ts';
import { stripBidi } from '../../util/bidi.ts';
import { groupDigits } from '../../util/format.ts';
import { oneLine } from '../../util/one-line.ts';
import type { AlertLinks, OutgoingMessage } from '../notifier.ts';
import { alertCount, httpUrl, messageHeading } from './plain.ts';
import { reviewMeta, reviewOf } from './review-view.ts';
import { sparklineFor } from './sparkline.ts';
import {
  alertLine,
  alertMark,
  amazonDomain,
  andMore,
  bookUrl,
  factRows,
  muteLinkOf,
  truncate,
  truncateMapped,
} from './text.ts';

export const SLACK_LIMITS = {
  blocks: 50,
  headerChars: 150,
  sectionChars: 3_000,
  /** The top-level `text` (notification and fallback): Slack allows more, this stays readable. */
  textChars: 3_000,
  /**
   * All block text together. Slack refuses long block payloads (`msg_blocks_too_long`) well below
   * 50 × 3,000 characters; reports put the edge near 13,000, so a group stays under this.
   */
  totalChars: 12_000,
} as const;

/** Caps below the section limit, so one long field cannot crowd out the rest of an alert. */
const TITLE_CHARS = 500;
const FACT_CHARS = 300;
const REVIEW_TITLE_CHARS = 250;
const REVIEWER_CHARS = 80;
/** A review body in a group gets less room, so a storm of reviews still shows several of them. */
const GROUP_BODY_CHARS = 400;
const URL_CHARS = 1_000;
const MIN_SECTION_CHARS = 200;

/**
 * The blocks we send, typed by @slack/types (what Slack accepts), narrowed to what we write: a
 * section always has mrkdwn text, a context block only mrkdwn elements.
 */
export type SlackTextObject = PlainTextElement | MrkdwnElement;
export type SlackBlock =
  | (HeaderBlock & { text: PlainTextElement })
  | (SectionBlock & { text: MrkdwnElement })
  | (ContextBlock & { elements: MrkdwnElement[] });

export interface SlackMessage {
  /** Plain fallback for notifications and clients without blocks (escaped too: Slack parses it). */
  text: string;
  blocks: SlackBlock[];
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Slack's control characters in text: `<` opens mentions (`<!channel>`, `<@U123>`) and links, `&`
 * starts an entity. Escaping all three is what Slack asks for and defuses every injection.
 */
export function escapeMrkdwn(text: string): string {
  // Bidi overrides go too: they would make the text read differently than it is.
  return stripBidi(text).replace(/[&<>]/g, (c) => ENTITIES[c] ?? c);
}

/** Escaped, then cut to `max` characters of escaped text. */
function esc(text: string, max: number): string {
  return truncateMapped(text, max, escapeMrkdwn);
}

/** Quotes a review body: each line starts with `>`, which Slack shows as a quote bar. */
function quoteLines(text: string, max: number): string {
  const squeezed = text
    .replace(/\r\n?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (max < 2 || squeezed === '') return '';
  return `>${truncateMapped(squeezed, max - 1, (g) => (g === '\n' ? '\n>' : escapeMrkdwn(g)))}`;
}

/**
 * A URL made safe to sit inside `<url|label>`: http(s) only, serialised by the URL parser (which
 * percent-encodes `<`, `>` and spaces), `|` encoded since it ends the URL part, `&` escaped.
 * Too long or not a URL: no link at all — a cut URL would lead somewhere else.
 */
export function slackLinkUrl(raw: string): string | undefined {
  const url = httpUrl(raw);
  if (url === undefined) return undefined;
  const safe = escapeMrkdwn(url.href.replace(/\|/g, '%7C').replace(/</g, '%3C').replace(/>/g, '%3E'));
  return safe.length <= URL_CHARS ? safe : undefined;
}

function link(raw: string | undefined, label: string): string | undefined {
  const url = raw === undefined ? undefined : slackLinkUrl(raw);
  return url === undefined ? undefined : `<${url}|${escapeMrkdwn(label)}>`;
}

/** A piece of a section: `claim` orders who gets room first, `order` where it is shown. */
interface Part {
  order: number;
  claim: number;
  render: (budget: number) => string;
}

/** `prefix + escaped text + suffix` within `budget` (and `cap` for the text), or '' if no room. */
function framed(prefix: string, text: string, suffix: string, budget: number, cap: number): string {
  const room = Math.min(cap, budget - prefix.length - suffix.length);
  const inner = esc(text, room);
  return inner === '' ? '' : prefix + inner + suffix;
}

export interface AlertTextOptions {
  hideLowStar: boolean;
  /** Cap on the review body (less in a group, so several reviews fit). */
  bodyChars: number;
  /** Zone of the times shown (UTC when absent). */
  timeZone?: string | undefined;
  /** Locale of the dates shown (en-GB when absent). */
  locale?: string | undefined;
  /** This alert's mute links (the message's `links`). */
  mute?: AlertLinks | undefined;
}

/** One alert's section text (mrkdwn), at most `max` characters once escaped. */
export function renderAlertText(alert: Alert, max: number, options: AlertTextOptions): string {
  const parts: Part[] = [];
  const add = (order: number, claim: number, render: (budget: number) => string): void => {
    parts.push({ order, claim, render });
  };
  add(0, 0, (b) => framed(`${alertMark(alert)} *`, oneLine(alert.title), '*', b, TITLE_CHARS));

  const review = reviewOf(alert);
  const hidden = review !== undefined && options.hideLowStar && review.lowStar;
  const links: string[] = [];
  const { asin, marketplace } = alert.subject;
  const page =
    asin === undefined ? undefined : link(bookUrl(asin, marketplace), `Book on ${amazonDomain(marketplace)}`);
  if (page !== undefined) links.push(page);
  const reviewLink = link(review?.url, 'Read the review');
  if (reviewLink !== undefined) links.push(reviewLink);
  const muted = muteLinkOf(options.mute);
  const muteLink = muted === undefined ? undefined : link(muted.url, muted.label);
  // First claim on the room after the title: a message that can be muted says how.
  if (muteLink !== undefined) add(10, 0.5, (b) => fitWhole([muteLink], '', b));
  // Links are never cut (a cut link points elsewhere): each fits whole or is left out.
  if (links.length > 0) add(9, 1, (b) => fitWhole(links, ' · ', b));

  if (review !== undefined) {
    const meta = reviewMeta(review);
    if (hidden) {
      // Rating, platform and link only: the title, body and reviewer stay out of the channel.
      add(1, 2, (b) => esc(`${meta} · text hidden (low-star review)`, b));
    } else {
      const by = review.reviewer === undefined ? '' : ` · by ${truncate(review.reviewer, REVIEWER_CHARS)}`;
      add(1, 2, (b) => esc(`${meta}${by}`, b));
      const { title, body } = review;
      if (title !== undefined) add(2, 5, (b) => framed('*', title, '*', b, REVIEW_TITLE_CHARS));
      // Last to claim: the body takes whatever room the rest left.
      if (body !== undefined) add(3, 9, (b) => quoteLines(body, Math.min(b, options.bodyChars)));
    }
  }
  for (const row of factRows(alert, options.timeZone, options.locale)) {
    add(4, 3, (b) => framed(`*${escapeMrkdwn(row.label)}:* `, row.value, '', b, FACT_CHARS));
  }
  const spark = sparklineFor(alert);
  if (spark !== undefined) {
    const label = partsOf(alert.kind).seriesLabel ?? 'Rank (taller = better)';
    add(5, 4, (b) => fitWhole([`${label}: ${spark}`], '', b));
  }

  const kept = new Map<Part, string>();
  let used = 0;
  for (const part of [...parts].sort((a, b) => a.claim - b.claim)) {
    const separator = kept.size === 0 ? 0 : 1;
    const budget = max - used - separator;
    const text = budget > 0 ? part.render(budget) : '';
    if (text === '' || text.length > budget) continue;
    kept.set(part, text);
    used += separator + text.length;
  }
  return parts
    .filter((p) => kept.has(p))
    .sort((a, b) => a.order - b.order)
    .map((p) => kept.get(p))
    .join('\n');
}

/** Joins as many whole items as fit in `budget`. */
function fitWhole(items: readonly string[], separator: string, budget: number): string {
  let out = '';
  for (const item of items) {
    const next = out === '' ? item : out + separator + item;
    if (next.length <= budget) out = next;
  }
  return out;
}

function fallbackText(message: OutgoingMessage): string {
  const count = alertCount(message);
  const lines = message.alerts.map(alertLine);
  const text = count <= 1 ? (lines[0] ?? '') : `${groupDigits(count)} alerts: ${lines.join(' · ')}`;
  return esc(text, SLACK_LIMITS.textChars);
}

export function renderSlackMessage(message: OutgoingMessage): SlackMessage {
  const count = alertCount(message);
  const headerText = esc(messageHeading(message), SLACK_LIMITS.headerChars);
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: headerText, emoji: true } },
  ];
  const bodyChars = count > 1 ? GROUP_BODY_CHARS : SLACK_LIMITS.sectionChars;
  // Besides the header: every alert if all fit, else room for the "…and N more" block too.
  const maxSections = count <= SLACK_LIMITS.blocks - 1 ? SLACK_LIMITS.blocks - 1 : SLACK_LIMITS.blocks - 2;
  let total = headerText.length;
  let shown = 0;
  for (const alert of message.alerts) {
    if (shown >= maxSections) break;
    const room = Math.min(SLACK_LIMITS.sectionChars, SLACK_LIMITS.totalChars - total);
    // An alert squeezed into a sliver says little: past this it goes into "…and N more".
    if (room < MIN_SECTION_CHARS && shown > 0) break;
    const text = renderAlertText(alert, room, {
      hideLowStar: message.hideLowStarText,
      bodyChars,
      timeZone: message.timeZone,
      locale: message.locale,
      mute: message.links?.alerts[alert.fingerprint],
    });
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
    total += text.length;
    shown++;
  }
  // Counts both the alerts cut here and those the pipeline already left out of `alerts`.
  const more = count - shown;
  if (more > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: andMore(more) }] });
  return { text: fallbackText(message), blocks };
}
