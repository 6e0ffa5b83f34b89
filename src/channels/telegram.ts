// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * Telegram through a bot (core.telegram.org/bots/api#sendmessage): `parse_mode: HTML`, with `&`,
 * `<` and `>` of untrusted text escaped, so only our own tags are markup. A message is at most
 * 4,096 characters; link previews are off (review links come from the public).
 *
 * Limits (core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this): about one
 * message a second in a chat and 20 a minute in a group; a 429 says how long to wait in
 * `parameters.retry_after` (seconds). The bot token is a secret and sits in the request path.
 */
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { checkEndpoint, deliveryFields } from '../config-kit/channel-fields.ts';
import { secretField } from '../config-kit/fields.ts';
import { Secret } from '../config-kit/secret.ts';
import {
  classifyStatus,
  createHttpNotifier,
  type HttpAnswer,
  jsonField,
  type Verdict,
} from './http-channel.ts';
import type { OutgoingMessage } from './notifier.ts';
import { defineChannel, endpointKey } from './plugin.ts';
import { escapeCut, fitPlainAlerts, type Markup, messageHeading } from './render/plain.ts';

export const TELEGRAM_TEXT_CHARS = 4_096;
/** One message a second in a private chat; 20 a minute in groups and channels. */
const CHAT_INTERVAL_MS = 1_100;
const GROUP_INTERVAL_MS = 3_100;
/** 401 bad token, 403 bot blocked or removed, 404 malformed token: nothing will get through. */
const REFUSING = new Set([401, 403, 404]);
/** 400s that are about the chat, not the message. */
const CHAT_GONE = /chat not found|upgraded to a supergroup|bot was kicked|not enough rights|have no rights/i;

/**
 * Telegram's HTML parse mode, not HTML: it knows the named entities &lt; &gt; &amp; &quot; only, and
 * message lengths are counted after this escaping, so an apostrophe stays one character.
 */
const TELEGRAM_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const telegramEscape = (text: string) => text.replace(/[&<>"]/g, (c) => TELEGRAM_ENTITIES[c] ?? c);
export const telegramMarkup: Markup = {
  escape: telegramEscape,
  bold: (text) => `<b>${text}</b>`,
  quote: (line) => `│ ${line}`,
  link: (url, label) => `<a href="${telegramEscape(url)}">${telegramEscape(label)}</a>`,
};

const schema = z
  .strictObject({
    ...deliveryFields,
    type: z.literal('telegram'),
    botToken: secretField
      .refine((token) => /^\d+:[\w-]{20,}$/.test(token.reveal()), {
        message:
          'expected a bot token from @BotFather, such as 123456:ABC-DEF… (digits, a colon, then the key)',
      })
      .meta({ description: 'Bot token from @BotFather (secret), e.g. ${TELEGRAM_BOT_TOKEN}.' }),
    chatId: z
      .union([
        z.int(),
        z.string().regex(/^(-?\d+|@\w{5,})$/, 'expected a chat id such as -1001234567890 or @channelname'),
      ])
      .transform(String)
      .meta({ description: 'The chat, group (negative id) or @channel the bot posts to.' }),
    apiUrl: z
      .string()
      .default('https://api.telegram.org')
      .meta({ description: 'Bot API server; a local Bot API server or a test receiver.' }),
  })
  .superRefine((channel, ctx) =>
    // Wrapped only for the check: the bot token travels in this server's paths.
    checkEndpoint(
      new Secret(channel.apiUrl),
      { field: 'apiUrl', example: 'https://api.telegram.org', allowAnyHost: false },
      ctx,
    ),
  );

export function renderTelegramText(message: OutgoingMessage): string {
  const heading = `<b>${telegramEscape(messageHeading(message))}</b>`;
  const { shown, moreLine } = fitPlainAlerts(
    message,
    telegramMarkup,
    {
      maxAlerts: 20,
      totalChars: TELEGRAM_TEXT_CHARS - heading.length - 60,
      titleChars: 300,
      detailChars: [3_000, 600],
      bodyChars: [2_000, 300],
    },
    (text) => {
      const link = text.url === undefined ? '' : `\n<a href="${telegramEscape(text.url)}">Open</a>`;
      const details = text.details === '' ? '' : `\n${text.details}`;
      return `${text.mark} <b>${text.title}</b>${details}${link}`;
    },
    (section) => section.length + 2,
  );
  return [
    heading,
    ...shown,
    ...(moreLine === undefined ? [] : [escapeCut(telegramMarkup, moreLine, 60)]),
  ].join('\n\n');
}

/** Telegram's own answer: `parameters.retry_after` on a 429, a description that names a lost chat. */
function classify(answer: HttpAnswer): Verdict {
  const verdict = classifyStatus(answer, 'Telegram', REFUSING);
  if (answer.status === 429) {
    const seconds = jsonField(answer.text, 'parameters', 'retry_after');
    if (typeof seconds === 'number' && seconds >= 0) {
      return { outcome: 'retry', note: 'rate limited', retryAfterMs: Math.ceil(seconds * 1000) };
    }
  }
  const description = jsonField(answer.text, 'description');
  if (answer.status === 400 && typeof description === 'string' && CHAT_GONE.test(description)) {
    return {
      outcome: 'refused',
      note: 'the chat is gone or the bot may not post there; fix or remove this channel',
    };
  }
  return verdict;
}

export function createTelegramNotifier(options: {
  id: string;
  botToken: Secret;
  chatId: string;
  apiUrl: string;
  dispatcher?: Dispatcher | undefined;
}) {
  return createHttpNotifier({
    id: options.id,
    type: 'telegram',
    secrets: [options.botToken],
    dispatcher: options.dispatcher,
    render: (message) => ({
      url: `${options.apiUrl.replace(/\/+$/, '')}/bot${options.botToken.reveal()}/sendMessage`,
      json: {
        chat_id: options.chatId,
        text: renderTelegramText(message),
        parse_mode: 'HTML',
        link_preview_options: { is_disabled: true },
      },
    }),
    classify,
  });
}

export const telegramChannel = defineChannel({
  type: 'telegram',
  schema,
  pace: (config) => ({
    minIntervalMs: /^(-|@)/.test(config.chatId) ? GROUP_INTERVAL_MS : CHAT_INTERVAL_MS,
    paceKey: endpointKey('telegram', config.botToken.reveal(), config.chatId),
  }),
  create: (config, deps) =>
    createTelegramNotifier({
      id: config.id,
      botToken: config.botToken,
      chatId: config.chatId,
      apiUrl: config.apiUrl,
      dispatcher: deps.dispatcher,
    }),
});
