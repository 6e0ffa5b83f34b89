import type { ParsedMail } from 'mailparser';
import { EMAIL_STYLE } from '../../src/channels/render/email-style.ts';
import type { ReceivedRequest } from '../../src/tools/receivers/http.ts';
import type { RedisOutage } from './redis-aof.ts';
import type { ExpectedAlert } from './scenario.ts';

export type ChannelName = 'slack' | 'email' | 'log';
export const HEALTHY_CHANNELS: readonly ChannelName[] = ['slack', 'email', 'log'];

/** One alert as a channel delivered it: its title as shown, when, and (log channel only) its fingerprint. */
export interface Delivery {
  title: string;
  at: number;
  fingerprint?: string;
}

const squeeze = (text: string): string => text.replace(/\s+/g, ' ').trim();

function unescapeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** A section's text starts `<mark> *<escaped title>*`, then the alert's other lines. */
function slackTitle(text: string): string | undefined {
  const start = text.indexOf(' *');
  if (start < 0) return undefined;
  const rest = text.slice(start + 2);
  const end = rest.indexOf('*\n');
  const raw = end >= 0 ? rest.slice(0, end) : rest.endsWith('*') ? rest.slice(0, -1) : rest;
  return squeeze(unescapeEntities(raw));
}

/** Alerts in the Slack messages the receiver accepted (answered 2xx); refused posts delivered nothing. */
export function slackDeliveries(
  answered: readonly { request: ReceivedRequest; status: number }[],
): Delivery[] {
  const out: Delivery[] = [];
  for (const { request, status } of answered) {
    if (status < 200 || status > 299) continue;
    const blocks = (request.body as { blocks?: { type: string; text?: { text: string } }[] } | undefined)
      ?.blocks;
    for (const block of blocks ?? []) {
      if (block.type !== 'section' || block.text === undefined) continue;
      const title = slackTitle(block.text.text);
      if (title !== undefined) out.push({ title, at: request.receivedAt });
    }
  }
  return out;
}

// The title paragraph of each alert card in the HTML part (escaped text inside <bdi>): review text
// cannot forge one, because every untrusted character is escaped there.
// Its style is the card title's of the one email style table (it holds no character special to a regex).
const HTML_TITLE = new RegExp(`<p style="${EMAIL_STYLE.cardTitle}"><bdi>([\\s\\S]*?)</bdi></p>`, 'g');
const TEXT_ALERT_LINE = /^\[(?:INFO|WARNING|CRITICAL)(?:, resolved)?\] .+$/gm;

export interface CapturedEmail {
  at: number;
  mail: ParsedMail;
}

export function emailDeliveries(emails: readonly CapturedEmail[]): Delivery[] {
  return emails.flatMap(({ at, mail }) =>
    [...(mail.html === false ? '' : mail.html).matchAll(HTML_TITLE)].map((m) => ({
      title: squeeze(unescapeEntities((m[1] ?? '').replace(/<br>/g, ' '))),
      at,
    })),
  );
}

/** Lines of the plain-text part that read as an alert header but stand for no alert of the email. */
export function forgedTextLines(emails: readonly CapturedEmail[]): number {
  let forged = 0;
  for (const { mail } of emails) {
    const shown = (mail.text ?? '').match(TEXT_ALERT_LINE)?.length ?? 0;
    const real = [...(mail.html === false ? '' : mail.html).matchAll(HTML_TITLE)].length;
    forged += Math.max(0, shown - real);
  }
  return forged;
}

/** The log channel writes one JSON line per alert, with the fingerprint, into the worker's log. */
export function logDeliveries(lines: readonly string[]): Delivery[] {
  const out: Delivery[] = [];
  for (const line of lines) {
    if (!line.includes('"channel":"log"')) continue;
    let entry: { channel?: unknown; fingerprint?: unknown; msg?: unknown; time?: unknown };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.channel !== 'log' || typeof entry.fingerprint !== 'string' || typeof entry.msg !== 'string')
      continue;
    out.push({ title: squeeze(entry.msg), at: Number(entry.time), fingerprint: entry.fingerprint });
  }
  return out;
}

// A book's target is named “Title” (book/…/US) once a snapshot knows its title (source-health.ts).
const TARGET = '(?:“[^”]*” \\((\\S+)\\)|(\\S+))';
const HEALTH_FIRED = new RegExp(`^Polling ${TARGET} failed \\d+ times in a row since (\\S+) \\(last: `);
const HEALTH_RECOVERED = new RegExp(
  `^Polling ${TARGET} works again after \\d+ failed polls \\(failing since (\\S+)\\)$`,
);
export const CHANNEL_DISABLED = 'Channel "dead" refused delivery for good (404) and was disabled';

export interface Duplicate {
  title: string;
  firstAt: number;
  againAt: number;
  /** A worker was killed right after the first delivery (before its dedup write could land). */
  inWindow: boolean;
}

export interface ChannelReport {
  channel: ChannelName;
  expected: number;
  /** Expected alerts delivered at least once. */
  delivered: number;
  losses: string[];
  invented: string[];
  duplicates: Duplicate[];
  /** The same change announced under two fingerprints (log channel, which shows fingerprints). */
  doubleAlerts: string[];
  healthFired: number;
  healthRecovered: number;
  healthUnpaired: string[];
  channelDisabled: number;
}

/** How long after a channel's confirmation the dedup write may still be pending on a loaded machine. */
const DEDUP_LAG_MS = 5_000;

function inDuplicateWindow(
  firstAt: number,
  kills: readonly number[],
  outages: readonly RedisOutage[],
): boolean {
  // While Redis is down the dedup write waits in the client; a kill before it lands counts too.
  const covering = outages.find((o) => o.downAt - 500 <= firstAt && firstAt <= o.upAt);
  const end = Math.max(firstAt, covering?.upAt ?? firstAt) + DEDUP_LAG_MS;
  return kills.some((k) => k >= firstAt - 500 && k <= end);
}

/**
 * Keyword and review titles name the book (“Title” next to its ASIN) once its book target has a
 * stored snapshot, which depends on timing in a chaos run: the expected titles leave the book's
 * name out, and so does the comparison. `“kw” fell … for “Book” (ASIN, US)` and
 * `review of “Book” (ASIN)` read as `“kw” fell … (ASIN, US)` and `review of ASIN`.
 */
export function withoutBookName(title: string): string {
  return title
    .replace(/ for “[^”]*”(?= \(B0[A-Z0-9]{8}, )/, '')
    .replace(/ of “[^”]*” \((B0[A-Z0-9]{8})\)/, ' of $1');
}

export function analyseChannel(
  channel: ChannelName,
  deliveries: readonly Delivery[],
  expected: readonly ExpectedAlert[],
  chaos: { kills: readonly number[]; outages: readonly RedisOutage[] },
): ChannelReport {
  const sorted = deliveries
    .map((d) => ({ ...d, title: withoutBookName(d.title) }))
    .sort((a, b) => a.at - b.at);
  const byTitle = new Map<string, Delivery[]>();
  for (const d of sorted) byTitle.set(d.title, [...(byTitle.get(d.title) ?? []), d]);
  const losses = expected.filter((e) => !sorted.some((d) => e.matches(d.title))).map((e) => e.title);
  const fired = new Set<string>();
  const recovered = new Set<string>();
  const invented: string[] = [];
  let channelDisabled = 0;
  for (const title of byTitle.keys()) {
    const health = HEALTH_FIRED.exec(title);
    const back = HEALTH_RECOVERED.exec(title);
    if (health !== null) fired.add(`${health[1] ?? health[2]} since ${health[3]}`);
    else if (back !== null) recovered.add(`${back[1] ?? back[2]} since ${back[3]}`);
    else if (title === CHANNEL_DISABLED) channelDisabled += 1;
    else if (!expected.some((e) => e.matches(title))) invented.push(title);
  }
  const duplicates: Duplicate[] = [];
  const doubleAlerts: string[] = [];
  for (const [title, list] of byTitle) {
    const first = list[0];
    if (first === undefined) continue;
    const fingerprints = new Set(list.map((d) => d.fingerprint));
    if (fingerprints.size > 1) doubleAlerts.push(`${title} (${[...fingerprints].join(', ')})`);
    for (const again of list.slice(1)) {
      const original = list.find((d) => d.fingerprint === again.fingerprint) ?? first;
      if (original === again) continue;
      duplicates.push({
        title,
        firstAt: original.at,
        againAt: again.at,
        inWindow: inDuplicateWindow(original.at, chaos.kills, chaos.outages),
      });
    }
  }
  return {
    channel,
    expected: expected.length,
    delivered: expected.length - losses.length,
    losses,
    invented,
    duplicates,
    doubleAlerts,
    healthFired: fired.size,
    healthRecovered: recovered.size,
    healthUnpaired: [...fired]
      .filter((k) => !recovered.has(k))
      .concat([...recovered].filter((k) => !fired.has(k))),
    channelDisabled,
  };
}
