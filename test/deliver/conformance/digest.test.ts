/**
 * The compact digest's contract for every channel that can show one (its notifier has
 * `sendDigest`: Slack, Discord, Teams), against the channel's local receiver: hostile titles
 * arrive escaped, a long digest fits the service's limits with "…and N more", the channel's
 * rate-limit signal and server errors become the same `DeliveryError`s as for alerts, and no
 * secret reaches an error. A chat channel that gains `sendDigest` without limits here fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_CHAT_TYPES, type DigestMessage } from '../../../src/channels/digest-message.ts';
import { DeliveryError } from '../../../src/channels/notifier.ts';
import { CHANNELS } from '../../../src/channels/registry.ts';
import { SLACK_LIMITS } from '../../../src/channels/render/slack-blocks.ts';
import { TEAMS_LIMITS } from '../../../src/channels/teams.ts';
import { discordHarness, ntfyHarness, teamsHarness, telegramHarness } from './chat.ts';
import { emailHarness, logHarness, outboxHarness, slackHarness } from './existing.ts';
import type { RunningChannel } from './suite.ts';
import { webhookHarness } from './webhook.ts';

const HOSTILE =
  '\u202Eevil\u202C <script>alert(1)</script> @everyone @here <!channel> <@U123> [click me](https://evil.example/phish) **bold**';

function digest(lines: number, labelChars: number): DigestMessage {
  const line = (n: number) => ({
    label: `${HOSTILE} ${'x'.repeat(labelChars)} #${n}`,
    value: `${HOSTILE} #${n}`,
  });
  const section = (heading: string) => ({
    heading,
    lines: Array.from({ length: lines }, (_, n) => line(n)),
    more: 3,
  });
  return {
    messageId: `conf-digest-${lines}`,
    title: `Daily digest for acme — Fri 20 Nov: ${HOSTILE}`,
    sections: [section('Totals'), section('Movers'), section('New reviews')],
    reportUrl: 'https://console.example/digest',
    footer: 'Times in Europe/Berlin. The full report comes by email.',
  };
}

interface DigestLimits {
  start(): Promise<RunningChannel>;
  expectWithinLimits(raw: string): void;
}

const within = (n: number, max: number, what: string) => expect(n, what).toBeLessThanOrEqual(max);

const LIMITS: Record<string, DigestLimits> = {
  slack: {
    start: slackHarness,
    expectWithinLimits(raw) {
      const body = JSON.parse(raw) as { text: string; blocks: { type: string; text?: { text: string } }[] };
      within(body.blocks.length, SLACK_LIMITS.blocks, 'blocks');
      within(body.text.length, SLACK_LIMITS.textChars, 'text');
      let total = 0;
      for (const block of body.blocks) {
        const chars = block.text?.text.length ?? 0;
        within(
          chars,
          block.type === 'header' ? SLACK_LIMITS.headerChars : SLACK_LIMITS.sectionChars,
          block.type,
        );
        total += chars;
      }
      within(total, SLACK_LIMITS.totalChars, 'all block text');
    },
  },
  discord: {
    start: discordHarness,
    expectWithinLimits(raw) {
      const body = JSON.parse(raw) as {
        embeds: {
          title: string;
          description?: string;
          fields: { name: string; value: string }[];
          footer: { text: string };
        }[];
        allowed_mentions: unknown;
      };
      expect(body.allowed_mentions).toEqual({ parse: [] });
      const [embed] = body.embeds;
      if (embed === undefined) throw new Error('no embed');
      within(embed.title.length, 256, 'title');
      within(embed.fields.length, 25, 'fields');
      let total = embed.title.length + (embed.description?.length ?? 0) + embed.footer.text.length;
      for (const field of embed.fields) {
        within(field.name.length, 256, 'field name');
        within(field.value.length, 1_024, 'field value');
        total += field.name.length + field.value.length;
      }
      within(total, 6_000, 'embed text');
    },
  },
  teams: {
    start: teamsHarness,
    expectWithinLimits(raw) {
      within(Buffer.byteLength(raw), TEAMS_LIMITS.payloadBytes, 'payload bytes');
    },
  },
};

const EVERY_HARNESS: Record<string, () => Promise<RunningChannel>> = {
  log: logHarness,
  slack: slackHarness,
  email: emailHarness,
  outbox: outboxHarness,
  webhook: webhookHarness,
  discord: discordHarness,
  teams: teamsHarness,
  telegram: telegramHarness,
  ntfy: ntfyHarness,
};

describe('the channels that show the compact digest', () => {
  it('are Slack, Discord and Teams (DIGEST_CHAT_TYPES), each with digest limits in this file', async () => {
    const withDigest: string[] = [];
    for (const plugin of CHANNELS) {
      const start = EVERY_HARNESS[plugin.type];
      if (start === undefined) throw new Error(`no harness for ${plugin.type}`);
      const harness = await start();
      if (harness.notifier.sendDigest !== undefined) withDigest.push(plugin.type);
      await harness.close();
    }
    expect(withDigest).toEqual(['slack', 'discord', 'teams']);
    expect(DIGEST_CHAT_TYPES).toEqual(withDigest);
    expect(Object.keys(LIMITS).sort()).toEqual([...withDigest].sort());
  });
});

for (const [type, limits] of Object.entries(LIMITS)) {
  describe(`channel "${type}" keeps the digest contract`, () => {
    let channel: RunningChannel;
    beforeAll(async () => {
      channel = await limits.start();
    });
    afterAll(async () => {
      await channel?.close();
    });
    const send = (message: DigestMessage) => {
      const sendDigest = channel.notifier.sendDigest;
      if (sendDigest === undefined) throw new Error(`${type} shows no digest`);
      return sendDigest(message, AbortSignal.timeout(10_000));
    };

    it('delivers hostile titles escaped: no mention pings, no markup runs, the link kept', async () => {
      await send(digest(2, 10));
      const delivered = await channel.nextDelivered();
      for (const bad of channel.forbidden)
        expect(delivered, `found ${JSON.stringify(bad)}`).not.toContain(bad);
      expect(delivered).toContain('Daily digest for acme');
      expect(delivered).toContain('https://console.example/digest');
      expect(delivered).toContain('The full report comes by email.');
      limits.expectWithinLimits(delivered);
    });

    it('delivers a long digest within the limits, ending sections with "…and N more"', async () => {
      await send(digest(300, 2_000));
      const delivered = await channel.nextDelivered();
      expect(delivered).toMatch(/…and \d+ more/);
      limits.expectWithinLimits(delivered);
    });

    it('shows the quiet line when nothing moved, and drops a link that is not http(s)', async () => {
      await send({
        ...digest(0, 0),
        quietLine: 'All quiet: shelfwatch is running.',
        reportUrl: 'javascript:alert(1)',
      });
      const delivered = await channel.nextDelivered();
      expect(delivered).toContain('All quiet: shelfwatch is running.');
      expect(delivered).not.toContain('javascript:');
    });

    it("turns the channel's rate-limit signal into a wait and a 5xx into a retry, naming no secret", async () => {
      const asked = channel.rateLimited?.();
      const limited = await send(digest(1, 1)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(limited).toBeInstanceOf(DeliveryError);
      expect((limited as DeliveryError).retryAfterMs).toBe(asked);
      channel.serverError?.();
      const failed = await send(digest(1, 1)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect([(failed as DeliveryError).retryable, (failed as DeliveryError).disableChannel]).toEqual([
        true,
        false,
      ]);
      for (const error of [limited, failed])
        for (const secret of channel.secrets) expect(String((error as Error).message)).not.toContain(secret);
    });
  });
}
