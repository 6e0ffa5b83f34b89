/**
 * Each channel's config is checked by its own schema, through the registry: a bad URL, a missing
 * secret or an unknown field is a `validate` problem at its path, and no problem repeats a secret.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { channelSettings } from '../../src/deliver/channel-health.ts';
import { problemAt, validRaw } from '../config/helpers.ts';

function problemsWith(channel: Record<string, unknown>) {
  const raw = validRaw();
  raw.channels = [channel];
  delete raw.routes;
  const result = parseConfig(raw);
  if (result.ok) throw new Error('expected the config to be invalid, but it parsed');
  return result.problems;
}

const SECRET = 'DoNotRepeatMe42abcdefghijklmnop';

describe('channel configs', () => {
  it.each([
    ['discord', { webhookUrl: 'not a url' }, 'channels[0].webhookUrl', 'expected a URL starting with'],
    [
      'discord',
      { webhookUrl: `https://evil.example/api/webhooks/1/${SECRET}` },
      'channels[0].webhookUrl',
      'expected a URL on discord.com',
    ],
    [
      'teams',
      { webhookUrl: `http://prod-1.westus.logic.azure.com/workflows/x?sig=${SECRET}` },
      'channels[0].webhookUrl',
      'expected an https URL',
    ],
    ['webhook', { url: `https://hooks.example.com/${SECRET}` }, 'channels[0].secret', 'expected'],
    [
      'webhook',
      { url: 'https://hooks.example.com/x', secret: 'short' },
      'channels[0].secret',
      'at least 16 characters',
    ],
    ['telegram', { chatId: '42' }, 'channels[0].botToken', 'expected'],
    ['telegram', { botToken: SECRET, chatId: '42' }, 'channels[0].botToken', 'expected a bot token'],
    [
      'telegram',
      { botToken: `1:${SECRET}`, chatId: 'my friends' },
      'channels[0].chatId',
      'expected a chat id',
    ],
    ['ntfy', { topic: 'a topic with spaces' }, 'channels[0].topic', 'expected a topic'],
    [
      'ntfy',
      { topic: 'alerts', serverUrl: 'http://ntfy.example.com' },
      'channels[0].serverUrl',
      'expected an https URL',
    ],
    ['ntfy', { topic: 'alerts', priority: 5 }, 'channels[0].priority', 'unknown key "priority"'],
  ])('%s %j → %s', (type, fields, path, message) => {
    const problems = problemsWith({ id: 'c', type, ...fields });
    expect(problemAt(problems, path).message).toContain(message);
    expect(JSON.stringify(problems)).not.toContain(SECRET);
  });

  it('paces each channel by its documented limit, sharing a key per endpoint', () => {
    const raw = validRaw();
    raw.channels = [
      { id: 'a', type: 'discord', webhookUrl: 'https://discord.com/api/webhooks/1/abc' },
      { id: 'b', type: 'discord', webhookUrl: 'https://discord.com/api/webhooks/1/abc' },
      { id: 't', type: 'teams', webhookUrl: 'https://prod-1.westus.logic.azure.com/workflows/x?sig=s' },
      { id: 'dm', type: 'telegram', botToken: `1:${SECRET}`, chatId: 42 },
      { id: 'group', type: 'telegram', botToken: `1:${SECRET}`, chatId: -1001 },
      { id: 'n', type: 'ntfy', topic: 'alerts' },
    ];
    delete raw.routes;
    const result = parseConfig(raw);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const settings = channelSettings(result.config.channels);
    const interval = (id: string) => settings.get(id)?.minIntervalMs;
    expect(['a', 't', 'dm', 'group', 'n'].map(interval)).toEqual([2_000, 300, 1_100, 3_100, 5_000]);
    expect(settings.get('a')?.paceKey).toBe(settings.get('b')?.paceKey);
    expect(JSON.stringify([...settings.values()])).not.toContain('abc');
  });
});
