// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * Discord webhooks: one embed per alert. Untrusted text has its markdown escaped (a backslash) and
 * every `@` defused with a zero-width space, and `allowed_mentions: {parse: []}` makes sure no
 * mention pings anyone whatever slips through. Posted with `?wait=true`, so a 200 confirms the
 * message exists. Limits (discord.com/developers/docs/resources/message#embed-object-embed-limits):
 * 10 embeds, title 256, description 4,096, 6,000 characters of embed text in all.
 *
 * Rate limits (discord.com/developers/docs/topics/rate-limits): a 429 carries `retry_after`
 * (seconds) in its JSON body and `Retry-After` / `X-RateLimit-Reset-After` headers; about 5
 * requests per 2 s per webhook and 30 a minute per channel, so one message per 2 s per webhook.
 */
import { webhookUrlChannelSchema } from '../config-kit/channel-fields.ts';
import {
  classifyStatus,
  createWebhookNotifier,
  type HttpAnswer,
  jsonField,
  type Verdict,
  type WebhookNotifierOptions,
} from './http-channel.ts';
import type { OutgoingMessage } from './notifier.ts';
import { defineChannel, pacePerWebhook } from './plugin.ts';
import { renderDiscordDigest } from './render/digest-discord.ts';
import { escapeCut, fitPlainAlerts, type Markup, messageHeading } from './render/plain.ts';

const HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']);
export const DISCORD_LIMITS = {
  embeds: 10,
  titleChars: 256,
  descriptionChars: 4_096,
  embedTotalChars: 6_000,
  contentChars: 2_000,
} as const;
/** 30 messages a minute per channel: one every 2 s keeps a webhook under both of its limits. */
const MIN_INTERVAL_MS = 2_000;
/** 401 invalid webhook token, 403 missing access, 404 unknown webhook: it will not come back. */
const REFUSING = new Set([401, 403, 404]);
const COLOR = { critical: 0xd1242f, warning: 0xbf8700, info: 0x0969da, resolved: 0x1a7f37 } as const;

/**
 * Markdown that changes what text says or where it leads: emphasis, code, spoilers, quotes,
 * headings, masked links (`[label](url)` needs its brackets) and `<@id>` / `<#id>` mentions. A
 * list dash is left alone: it can only indent a review's own line.
 */
const MARKDOWN = new Set(['\\', '*', '_', '~', '`', '|', '>', '<', '#', '[', ']']);
export const discordMarkup: Markup = {
  escape: (g) => (g === '@' ? '@\u200b' : MARKDOWN.has(g) ? `\\${g}` : g),
  bold: (text) => `**${text}**`,
  quote: (line) => `> ${line}`,
  // The URL is one `safeUrl` wrote (no spaces or brackets left raw); the label is ours.
  link: (url, label) => `[${label}](${url.replace(/\)/g, '%29')})`,
};

const schema = webhookUrlChannelSchema({
  type: 'discord',
  description: 'Discord webhook URL (secret), e.g. ${DISCORD_WEBHOOK_URL}.',
  example: 'https://discord.com/api/webhooks/123/abc',
  shortExample: 'https://discord.com/api/webhooks/…',
  usualHost: 'discord.com',
  hostAllowed: (host) => HOSTS.has(host),
});

export function renderDiscordMessage(message: OutgoingMessage) {
  const { shown, moreLine } = fitPlainAlerts(
    message,
    discordMarkup,
    {
      maxAlerts: DISCORD_LIMITS.embeds,
      totalChars: DISCORD_LIMITS.embedTotalChars - 200,
      titleChars: DISCORD_LIMITS.titleChars - 20,
      detailChars: [3_000, 1_000],
      bodyChars: [2_000, 400],
    },
    (text, alert) => {
      const color = alert.status === 'resolved' ? COLOR.resolved : COLOR[alert.severity];
      return {
        title: `${text.mark} ${text.title}`,
        description: text.details,
        color,
        ...(text.url === undefined ? {} : { url: text.url }),
      };
    },
    (embed) => embed.title.length + embed.description.length,
  );
  const heading = escapeCut(discordMarkup, messageHeading(message), 200);
  return {
    content: moreLine === undefined ? heading : `${heading}\n${moreLine}`,
    embeds: shown,
    // Nothing in a message from us may ping anyone, whatever the text holds.
    allowed_mentions: { parse: [] },
  };
}

/**
 * Discord's waits are decimal seconds (`1.5`), in the body's `retry_after` and in
 * X-RateLimit-Reset-After (not Retry-After, whose seconds are whole): in ms, rounded up.
 */
function discordWaitMs(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  return typeof seconds === 'number' && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

/** Discord's own signal: `retry_after` in the body (seconds), else the headers. */
function classify(answer: HttpAnswer): Verdict {
  const verdict = classifyStatus(answer, 'Discord', REFUSING);
  if (answer.status !== 429 || verdict.outcome !== 'retry') return verdict;
  const fromBody = discordWaitMs(jsonField(answer.text, 'retry_after'));
  const resetAfter = discordWaitMs(answer.headers.get('x-ratelimit-reset-after') ?? undefined);
  const retryAfterMs = fromBody ?? resetAfter ?? verdict.retryAfterMs;
  return { outcome: 'retry', note: 'rate limited', ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}

export function createDiscordNotifier(options: WebhookNotifierOptions) {
  const waitUrl = () => {
    const url = new URL(options.webhookUrl.reveal());
    url.searchParams.set('wait', 'true');
    return url.href;
  };
  return createWebhookNotifier('discord', options, {
    render: (message) => ({ url: waitUrl(), json: renderDiscordMessage(message) }),
    renderDigest: (digest) => ({ url: waitUrl(), json: renderDiscordDigest(digest, discordMarkup) }),
    classify,
  });
}

export const discordChannel = defineChannel({
  type: 'discord',
  schema,
  pace: pacePerWebhook('discord', MIN_INTERVAL_MS),
  create: (config, deps) =>
    createDiscordNotifier({
      id: config.id,
      webhookUrl: config.webhookUrl,
      dispatcher: deps.dispatcher,
    }),
});
