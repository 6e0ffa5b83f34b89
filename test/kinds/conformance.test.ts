/**
 * Every alert kind through every renderer, from the registry (src/rules/kinds.ts): each kind has
 * its parts; its title reaches every output; its hostile text arrives escaped as that renderer
 * must escape it; and every row of its parts (chat, email) or every fact (webhook JSON) is shown.
 * The digest shows no alerts (only a count of silenced ones), so it has no part to check here.
 */
import { describe, expect, it } from 'vitest';
import { renderDiscordMessage } from '../../src/channels/discord.ts';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import { renderNtfyMessage } from '../../src/channels/ntfy.ts';
import { renderAlertEmail } from '../../src/channels/render/email.ts';
import { renderSlackMessage } from '../../src/channels/render/slack-blocks.ts';
import { factRows } from '../../src/channels/render/text.ts';
import { renderTeamsCard } from '../../src/channels/teams.ts';
import { renderTelegramText } from '../../src/channels/telegram.ts';
import { webhookPayload } from '../../src/channels/webhook.ts';
import { alertRows } from '../../src/console/pages/alerts.ts';
import { alertLogEntry } from '../../src/history/alert-log.ts';
import { ALERT_KINDS, type Alert, type AlertKind } from '../../src/model/alert.ts';
import { type FactRow, KINDS, partsOf } from '../../src/rules/kinds.ts';
import { stripBidi } from '../../src/util/bidi.ts';
import { alertOfKind, FACTS, HOSTILE } from './fixtures.ts';

/** Every string of a JSON payload, as the service shows them. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}
const json = (value: unknown): string => strings(value).join('\n');
/** Escapes that keep a character visible (Discord's backslash, its zero-width space after @). */
const unescaped = (text: string): string => text.replace(/\\(.)/g, '$1').replaceAll('\u200b', '');
/** Values readable as they are (no markup to escape), so the output must hold them verbatim. */
const SAFE = /^[\w #,.:()/%→★☆+-]+$/u;

function message(alert: Alert): OutgoingMessage {
  return { alerts: [alert], totalCount: 1, hideLowStarText: false, messageId: `kinds-${alert.kind}` };
}

interface Renderer {
  name: string;
  render(alert: Alert): string;
  /** Text that, shown as it is, would ping someone or run markup. */
  forbidden: readonly string[];
  /** The rows this renderer shows; undefined when it shows no facts (the console's list). */
  rows?(alert: Alert): FactRow[];
}

const CHAT_ROWS = (alert: Alert) => factRows(alert, 'UTC');
const RENDERERS: Renderer[] = [
  {
    name: 'plain text',
    render: (a) =>
      CHAT_ROWS(a)
        .map((r) => `${r.label}: ${r.value}`)
        .join('\n'),
    forbidden: [],
    rows: CHAT_ROWS,
  },
  {
    name: 'Slack',
    render: (a) => json(renderSlackMessage(message(a))),
    forbidden: ['<!here>', '<!channel>', '<@U123>', '<script>', '<b>'],
    rows: CHAT_ROWS,
  },
  {
    name: 'Discord',
    render: (a) => json(renderDiscordMessage(message(a))),
    forbidden: ['@everyone', '@here', '<@U123>', '[click me](', '**bold**', '<script>', '\u202E'],
    rows: CHAT_ROWS,
  },
  { name: 'Teams', render: (a) => json(renderTeamsCard(message(a))), forbidden: ['\u202E'], rows: CHAT_ROWS },
  {
    name: 'Telegram',
    render: (a) => renderTelegramText(message(a)),
    forbidden: ['<script>', '<b>x', '<i>hi', '<!here>', '<@U123>', '\u202E'],
    rows: CHAT_ROWS,
  },
  {
    name: 'ntfy',
    render: (a) => json(renderNtfyMessage(message(a))),
    forbidden: ['\u202E'],
    rows: CHAT_ROWS,
  },
  {
    name: 'email (HTML)',
    render: (a) => renderAlertEmail(message(a), { from: 'a@example.com', to: ['b@example.com'] }).html,
    forbidden: ['<script>', '<!here>', '<b>x', '<i>hi'],
    rows: (a) => partsOf(a.kind).emailRows(a, 'UTC'),
  },
  {
    name: 'email (text)',
    render: (a) => renderAlertEmail(message(a), { from: 'a@example.com', to: ['b@example.com'] }).text,
    forbidden: [],
    rows: (a) => partsOf(a.kind).emailRows(a, 'UTC'),
  },
  {
    name: 'webhook',
    render: (a) => JSON.stringify(webhookPayload(message(a), 'hook')),
    forbidden: ['\u202E'],
  },
  {
    name: 'console',
    render: (a) => alertRows([alertLogEntry(a, ['slack'])]).toString(),
    forbidden: ['<script>', '<b>x'],
  },
];

describe('every registered kind has its parts', () => {
  it.each(ALERT_KINDS)('%s', (kind) => {
    const parts = (KINDS as Partial<Record<AlertKind, (typeof KINDS)[AlertKind]>>)[kind];
    expect(
      parts,
      `${kind} is in the model's union but not in the registry (src/rules/kinds.ts)`,
    ).toBeDefined();
    expect(parts?.label.trim()).not.toBe('');
    expect(parts?.noun.every((n) => n.trim() !== '')).toBe(true);
    expect(typeof parts?.rows).toBe('function');
    expect(typeof parts?.emailRows).toBe('function');
    expect(FACTS[kind], `${kind} has no fixture in test/kinds/fixtures.ts`).toBeDefined();
  });
});

describe.each(RENDERERS)('$name renders every kind', (renderer) => {
  it.each(ALERT_KINDS)('%s', (kind) => {
    const alert = alertOfKind(kind) as Alert;
    const out = renderer.render(alert);
    const readable = unescaped(out);
    expect(out.trim()).not.toBe('');
    if (renderer.name !== 'plain text') expect(readable).toContain(`Title of ${kind}`);
    for (const bad of renderer.forbidden)
      expect(out, `${renderer.name} shows ${JSON.stringify(bad)} raw`).not.toContain(bad);
    const rows = renderer.rows?.(alert) ?? [];
    if (renderer.rows !== undefined) expect(rows.length, `${kind} shows no facts`).toBeGreaterThan(0);
    for (const row of rows) {
      expect(readable, `${renderer.name} lacks the ${row.label} row of ${kind}`).toContain(row.label);
      if (SAFE.test(row.value))
        expect(readable, `${renderer.name}: ${row.label} of ${kind}`).toContain(row.value);
    }
  });
});

describe('the webhook carries every fact of every kind as it is (JSON is its escaping)', () => {
  it.each(ALERT_KINDS)('%s', (kind) => {
    const payload = JSON.parse(
      JSON.stringify(webhookPayload(message(alertOfKind(kind) as Alert), 'hook')),
    ) as {
      alerts: { facts: Record<string, unknown> }[];
    };
    // Bidi overrides are the one thing taken out of text leaving the process (they reorder a reader's view).
    const sent = JSON.parse(JSON.stringify(FACTS[kind]), (_k, v: unknown) =>
      typeof v === 'string' ? stripBidi(v) : v,
    );
    expect(payload.alerts[0]?.facts).toEqual(sent);
    expect(JSON.stringify(payload)).toContain(JSON.stringify(stripBidi(HOSTILE)).slice(1, -1));
  });
});
