/**
 * Issue 27: every channel URL that carries a credential (Slack, Discord, Teams, webhook, the
 * Telegram Bot API, an ntfy server) is checked by the same rule: a URL, http or https, https off
 * this machine. Telegram's `apiUrl` and ntfy's `serverUrl` used to accept text that is no URL and
 * `gopher://`.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { validRaw } from './helpers.ts';

const CHANNELS: { field: string; channel: Record<string, unknown> }[] = [
  { field: 'webhookUrl', channel: { type: 'slack', allowAnyHost: true } },
  { field: 'webhookUrl', channel: { type: 'discord', allowAnyHost: true } },
  { field: 'webhookUrl', channel: { type: 'teams', allowAnyHost: true } },
  { field: 'url', channel: { type: 'webhook', secret: 'whsec_0123456789abcdef0123' } },
  {
    field: 'apiUrl',
    channel: { type: 'telegram', botToken: '123456:ABC-DEF1234ghIkl-0123456789', chatId: '42' },
  },
  { field: 'serverUrl', channel: { type: 'ntfy', topic: 'shelfwatch-alerts' } },
];

function problemsFor(field: string, channel: Record<string, unknown>, url: string) {
  const raw = validRaw();
  raw.channels = [{ id: 'c', ...channel, [field]: url }];
  const result = parseConfig(raw);
  return result.ok ? [] : result.problems;
}

describe('channel URLs: one rule', () => {
  for (const { field, channel } of CHANNELS) {
    it(`${channel.type}.${field}`, () => {
      for (const bad of [
        'not a url',
        'gopher://127.0.0.1/x',
        'ftp://example.com/x',
        'http://example.com/x',
      ]) {
        const problems = problemsFor(field, channel, bad);
        expect(
          problems.map((p) => p.path),
          bad,
        ).toContain(`channels[0].${field}`);
        expect(JSON.stringify(problems)).not.toContain(bad === 'not a url' ? '"not a url"' : bad);
      }
      expect(problemsFor(field, channel, 'https://example.com/hook/0123456789')).toEqual([]);
      expect(problemsFor(field, channel, 'http://127.0.0.1:9/hook/0123456789')).toEqual([]);
    });
  }
});
