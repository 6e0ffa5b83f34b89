/**
 * "No message shows an ASIN without its title when the title is known" (issue 25, done-when): every
 * alert kind of the registry through every renderer of a registered channel, with the book's title
 * (and a comp's) known, scanned piece by piece (a line of text, a string of a chat payload, a text
 * run of the email's HTML, a cell of the console's alert pages): wherever an ASIN appears, its book's title appears with it.
 */
import { describe, expect, it } from 'vitest';
import { renderDiscordMessage } from '../../src/channels/discord.ts';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import { renderNtfyMessage } from '../../src/channels/ntfy.ts';
import { CHANNELS } from '../../src/channels/registry.ts';
import { renderAlertEmail } from '../../src/channels/render/email.ts';
import { renderSlackMessage } from '../../src/channels/render/slack-blocks.ts';
import { factRows } from '../../src/channels/render/text.ts';
import { renderTeamsCard } from '../../src/channels/teams.ts';
import { renderTelegramText } from '../../src/channels/telegram.ts';
import { webhookPayload } from '../../src/channels/webhook.ts';
import { alertPage, alertRows } from '../../src/console/pages/alerts.ts';
import { alertLogEntry } from '../../src/history/alert-log.ts';
import { ALERT_KINDS, type Alert, type AlertFactsByKind, type AlertKind } from '../../src/model/alert.ts';
import { alertOfKind, FACTS } from './fixtures.ts';

const ASIN = 'B0CJ4XQ2ZK';
const TITLE = 'Tide Lines';
const COMP_ASIN = 'B0COMP0001';
const COMP_TITLE = 'Salt Roads';

/** Every string of a JSON payload. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}
const lines = (text: string): string[] => text.split('\n');
/** The HTML's text blocks: tags that end a visual block split it, inline ones do not. */
const htmlBlocks = (html: string): string[] =>
  html
    .split(/<\/?(?:p|div|tr|h[1-6]|li|ul|table|tbody|br|blockquote)\b[^>]*>/i)
    .map((block) => block.replace(/<[^>]+>/g, ''));

/** Each table cell's text (a row's cells are read one by one). */
const cells = (html: string): string[] =>
  html.split(/<\/?(?:td|th|tr|p|h[1-6]|li)\b[^>]*>/i).map((cell) => cell.replace(/<[^>]+>/g, ''));

function message(alert: Alert): OutgoingMessage {
  return { alerts: [alert], totalCount: 1, hideLowStarText: false, messageId: `titles-${alert.kind}` };
}
const email = (a: Alert) => renderAlertEmail(message(a), { from: 'a@example.com', to: ['b@example.com'] });

/** Each renderer cut into the pieces a person reads as one unit. */
const RENDERERS: Record<string, (alert: Alert) => string[]> = {
  'plain text (log)': (a) => factRows(a, 'UTC').map((r) => `${r.label}: ${r.value}`),
  Slack: (a) => strings(renderSlackMessage(message(a))).flatMap(lines),
  Discord: (a) => strings(renderDiscordMessage(message(a))).flatMap(lines),
  Teams: (a) => strings(renderTeamsCard(message(a))).flatMap(lines),
  Telegram: (a) => lines(renderTelegramText(message(a))).map((line) => line.replace(/<[^>]+>/g, '')),
  ntfy: (a) => strings(renderNtfyMessage(message(a))).flatMap(lines),
  'email (HTML)': (a) => htmlBlocks(email(a).html),
  'email (text)': (a) => lines(email(a).text),
  'email (subject)': (a) => [email(a).subject],
  // The console's alert list and an alert's page, cell by cell.
  'console (alert list)': (a) => cells(alertRows([alertLogEntry(a, ['slack'])]).toString()),
  'console (alert page)': (a) =>
    cells(alertPage({ path: '/alerts/x', csrf: 'c' }, alertLogEntry(a, ['slack']))),
  // The webhook's facts are data (asin and bookTitle are fields of their own); its text is the title.
  'webhook (text)': (a) =>
    (webhookPayload(message(a), 'hook').alerts as { title: string }[]).map((x) => x.title),
};

/** Which renderer shows each registered channel's messages: a new channel must be added here. */
const CHANNEL_RENDERERS: Record<string, string[]> = {
  log: ['plain text (log)'],
  slack: ['Slack'],
  email: ['email (HTML)', 'email (text)', 'email (subject)'],
  outbox: ['email (HTML)', 'email (text)'],
  webhook: ['webhook (text)'],
  discord: ['Discord'],
  teams: ['Teams'],
  telegram: ['Telegram'],
  ntfy: ['ntfy'],
};

/** The kind's alert as the rules raise it when the book's title is known: facts and title. */
function titledAlert(kind: AlertKind): Alert {
  const alert = alertOfKind(kind) as Alert;
  const facts: Record<string, unknown> = { ...(FACTS[kind] as AlertFactsByKind[AlertKind]) };
  for (const [key, value] of Object.entries(facts)) {
    if (typeof value === 'string' && /<script>/.test(value)) facts[key] = `${key} text`;
  }
  if ('asin' in facts || 'targetId' in facts) Object.assign(facts, { bookTitle: TITLE, author: 'Ada Quill' });
  if ('compAsin' in facts) facts.compTitle = COMP_TITLE;
  if ('targetId' in facts) facts.targetId = `book/${ASIN}/US`;
  const book = 'asin' in facts || 'targetId' in facts;
  const about = book ? ` of “${TITLE}” (${ASIN}, US)` : '';
  // A deployment's alert (Redis lost, Redis full) is about no book.
  const subject = book ? alert.subject : {};
  return { ...alert, subject, title: `${kind}${about}`, facts } as Alert;
}

describe('every kind names a known book by its title wherever its ASIN appears', () => {
  it('every registered channel has its renderer here', () => {
    for (const channel of CHANNELS) {
      expect(CHANNEL_RENDERERS[channel.type], `no renderer for channel "${channel.type}"`).toBeDefined();
    }
  });

  describe.each(Object.keys(RENDERERS))('%s', (name) => {
    it.each(ALERT_KINDS)('%s', (kind) => {
      const render = RENDERERS[name];
      if (render === undefined) throw new Error(name);
      const pieces = render(titledAlert(kind));
      expect(pieces.join('').trim()).not.toBe('');
      // A link's address is not read as text (a store page's URL carries the ASIN by nature).
      for (const piece of pieces.map((p) => p.replace(/https?:\/\/\S+/g, ''))) {
        if (piece.includes(ASIN)) expect(piece, `${name}: ${kind}`).toContain(TITLE);
        if (piece.includes(COMP_ASIN)) expect(piece, `${name}: ${kind}`).toContain(COMP_TITLE);
      }
    });
  });
});
