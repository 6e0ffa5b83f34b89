/** Harnesses for the chat channels: Discord, Microsoft Teams, Telegram and ntfy. */
import { expect } from 'vitest';
import { DISCORD_LIMITS } from '../../../src/deliver/channels/discord.ts';
import { startHttpReceiver } from '../../helpers/http-receiver.ts';
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
