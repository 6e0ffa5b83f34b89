/** Harnesses for the chat channels: Discord, Microsoft Teams, Telegram and ntfy. */
import { expect } from 'vitest';
import { DISCORD_LIMITS } from '../../../src/channels/discord.ts';
import { startHttpReceiver } from '../../../src/tools/receivers/http.ts';
import { buildChannel, requestReader } from './harness.ts';
import type { RunningChannel } from './suite.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const DISCORD_TOKEN = 'DiscordT0kenDoNotLeak42';

interface DiscordPayload {
  content: string;
  embeds: { title: string; description: string }[];
  allowed_mentions: { parse: string[] };
}

export async function discordHarness(): Promise<RunningChannel> {
  const receiver = await startHttpReceiver(`/api/webhooks/1234567890/${DISCORD_TOKEN}`);
  const built = buildChannel({
    id: 'conf-discord',
    type: 'discord',
    webhookUrl: receiver.url,
    allowAnyHost: true,
  });
  const next = requestReader(receiver);
  return {
    notifier: built.notifier,
    secrets: [DISCORD_TOKEN],
    nextDelivered: async () => {
      const request = await next();
      expect(request.path).toMatch(/\?wait=true$/);
      expect((request.body as DiscordPayload).allowed_mentions).toEqual({ parse: [] });
      return request.raw;
    },
    expectWithinLimits: (raw) => {
      const body = JSON.parse(raw) as DiscordPayload;
      expect(body.embeds.length).toBeLessThanOrEqual(DISCORD_LIMITS.embeds);
      expect(body.content.length).toBeLessThanOrEqual(DISCORD_LIMITS.contentChars);
      let total = 0;
      for (const embed of body.embeds) {
        expect(embed.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.titleChars);
        expect(embed.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.descriptionChars);
        total += embed.title.length + embed.description.length;
      }
      expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotalChars);
    },
    forbidden: ['@everyone', '@here', '<@U123>', '[click me](', '**bold**', '<script>', '\u202E'],
    rateLimited: () => {
      const body = '{"message":"You are being rate limited.","retry_after":1.5,"global":false}';
      receiver.respondWith(429, body, {
        ...JSON_HEADERS,
        'retry-after': '2',
        'x-ratelimit-reset-after': '1.5',
      });
      return 1_500;
    },
    serverError: () => receiver.respondWith(502, 'bad gateway'),
    refusedForGood: () =>
      receiver.respondWith(404, '{"message":"Unknown Webhook","code":10015}', JSON_HEADERS),
    logged: built.logged,
    close: async () => {
      await built.notifier.close?.();
      await receiver.close();
    },
  };
}

const TEAMS_SIG = 'TeamsSigDoNotLeak42';

/** Every `TextBlock` text in a card (the elements that render markdown). */
function textBlocks(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(textBlocks);
  if (typeof node !== 'object' || node === null) return [];
  const record = node as Record<string, unknown>;
  const own = record.type === 'TextBlock' && typeof record.text === 'string' ? [record.text] : [];
  return [...own, ...Object.values(record).flatMap(textBlocks)];
}

export async function teamsHarness(): Promise<RunningChannel> {
  const path = `/workflows/0123456789abcdef/triggers/manual/paths/invoke?api-version=2016-06-01&sig=${TEAMS_SIG}`;
  const receiver = await startHttpReceiver(path);
  const built = buildChannel({
    id: 'conf-teams',
    type: 'teams',
    webhookUrl: receiver.url,
    allowAnyHost: true,
  });
  const next = requestReader(receiver);
  return {
    notifier: built.notifier,
    secrets: [TEAMS_SIG],
    nextDelivered: async () => {
      const request = await next();
      // Markdown renders only in TextBlocks: none may hold the reviewer's text.
      for (const text of textBlocks(request.body)) {
        for (const bad of ['<!here>', '[click me]', '@everyone', '**bold**']) expect(text).not.toContain(bad);
      }
      return request.raw;
    },
    expectWithinLimits: (raw) => expect(Buffer.byteLength(raw)).toBeLessThan(28 * 1024),
    forbidden: ['\u202E'],
    rateLimited: () => {
      receiver.respondWith(429, '{"error":{"code":"WorkflowTriggeredTooManyTimes"}}', {
        ...JSON_HEADERS,
        'retry-after': '5',
      });
      return 5_000;
    },
    serverError: () => receiver.respondWith(503, 'unavailable'),
    // An answer that echoes the `sig` alone: it must not reach the error.
    refusedForGood: () => receiver.respondWith(404, `WorkflowNotFound (sig ${TEAMS_SIG})`),
    logged: built.logged,
    close: async () => {
      await built.notifier.close?.();
      await receiver.close();
    },
  };
}

const TELEGRAM_TOKEN = '123456789:TelegramT0kenDoNotLeak42xyz';

export async function telegramHarness(): Promise<RunningChannel> {
  const receiver = await startHttpReceiver('/');
  const built = buildChannel({
    id: 'conf-telegram',
    type: 'telegram',
    botToken: TELEGRAM_TOKEN,
    chatId: -1001234567890,
    apiUrl: receiver.origin,
  });
  const next = requestReader(receiver);
  return {
    notifier: built.notifier,
    secrets: [TELEGRAM_TOKEN, TELEGRAM_TOKEN.split(':')[1] ?? ''],
    nextDelivered: async () => {
      const request = await next();
      expect(request.path).toBe(`/bot${TELEGRAM_TOKEN}/sendMessage`);
      const body = request.body as { chat_id: string; text: string; parse_mode: string };
      expect([body.chat_id, body.parse_mode]).toEqual(['-1001234567890', 'HTML']);
      return body.text;
    },
    expectWithinLimits: (text) => expect(text.length).toBeLessThanOrEqual(4_096),
    forbidden: ['<script>', '<b>x', '<i>hi', '<!here>', '<@U123>', '\u202E'],
    rateLimited: () => {
      const body =
        '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 9","parameters":{"retry_after":9}}';
      receiver.respondWith(429, body, JSON_HEADERS);
      return 9_000;
    },
    serverError: () => receiver.respondWith(502, 'bad gateway'),
    refusedForGood: () =>
      receiver.respondWith(
        400,
        '{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}',
        JSON_HEADERS,
      ),
    logged: built.logged,
    close: async () => {
      await built.notifier.close?.();
      await receiver.close();
    },
  };
}

const NTFY_TOPIC = 'shelfwatch-NtfyTopicDoNotLeak42';
const NTFY_TOKEN = 'tk_NtfyT0kenDoNotLeak42';

export async function ntfyHarness(): Promise<RunningChannel> {
  const receiver = await startHttpReceiver('/');
  const built = buildChannel({
    id: 'conf-ntfy',
    type: 'ntfy',
    serverUrl: receiver.origin,
    topic: NTFY_TOPIC,
    token: NTFY_TOKEN,
  });
  const next = requestReader(receiver);
  return {
    notifier: built.notifier,
    secrets: [NTFY_TOPIC, NTFY_TOKEN],
    nextDelivered: async () => {
      const request = await next();
      expect(request.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
      const body = request.body as {
        topic: string;
        title: string;
        message: string;
        markdown: boolean;
        priority: number;
      };
      expect([body.topic, body.markdown]).toEqual([NTFY_TOPIC, false]);
      expect(body.priority).toBeGreaterThanOrEqual(1);
      return `${body.title}\n${body.message}`;
    },
    expectWithinLimits: (text) => {
      const [title = '', ...rest] = text.split('\n');
      expect(title.length).toBeLessThanOrEqual(250);
      expect(Buffer.byteLength(rest.join('\n'))).toBeLessThanOrEqual(4_096);
    },
    // Plain text with Markdown off: only what would reorder the text counts.
    forbidden: ['\u202E'],
    rateLimited: () => {
      receiver.respondWith(429, '{"code":42901,"http":429,"error":"limit reached: too many requests"}', {
        ...JSON_HEADERS,
        'retry-after': '12',
      });
      return 12_000;
    },
    serverError: () => receiver.respondWith(507, 'insufficient storage'),
    refusedForGood: () =>
      receiver.respondWith(403, `{"code":40301,"http":403,"error":"forbidden: ${NTFY_TOPIC}"}`),
    logged: built.logged,
    close: async () => {
      await built.notifier.close?.();
      await receiver.close();
    },
  };
}
