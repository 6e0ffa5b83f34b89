// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * ntfy push notifications (docs.ntfy.sh/publish/#publish-as-json): a JSON publish to the server's
 * root with the topic, a title, a plain-text message (Markdown off, so nothing in it is markup),
 * a priority from the severity, and the review or book as the click action. An access token,
 * when set, goes as `Authorization: Bearer`.
 *
 * Limits (docs.ntfy.sh/config/#rate-limiting, /#message-limits): a message over 4,096 bytes
 * becomes an attachment, so it is kept under; ntfy.sh lets a visitor burst 60 requests and then
 * one every 5 s, answering 429 beyond that. On a public server the topic is the only thing that
 * keeps strangers from reading: it is treated as a secret, like the token.
 */
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { checkEndpoint, deliveryFields } from '../config-kit/channel-fields.ts';
import { secretField } from '../config-kit/fields.ts';
import { Secret } from '../config-kit/secret.ts';
import type { Alert } from '../model/alert.ts';
import { classifyStatus, createHttpNotifier, type HttpAnswer, type Verdict } from './http-channel.ts';
import type { OutgoingMessage } from './notifier.ts';
import { defineChannel, endpointKey } from './plugin.ts';
import { escapeCut, fitPlainAlerts, type Markup, messageHeading } from './render/plain.ts';

export const NTFY_LIMITS = { messageBytes: 4_096, titleChars: 250 } as const;
/** ntfy.sh replenishes a visitor's requests at one per 5 s once the burst of 60 is spent. */
const MIN_INTERVAL_MS = 5_000;
/** ntfy sends no Retry-After: the replenish interval, twice over. */
const DEFAULT_WAIT_MS = 10_000;
/** 401/403: the token is wrong or may not write this topic; 404: no such server path. */
const REFUSING = new Set([401, 403, 404]);

const plain: Markup = { escape: (g) => g, bold: (text) => text, quote: (line) => `│ ${line}` };

/** ntfy's priorities: 5 urgent … 3 default … 2 low. */
function priorityOf(alerts: readonly Alert[]): number {
  if (alerts.some((a) => a.status !== 'resolved' && a.severity === 'critical')) return 5;
  if (alerts.some((a) => a.status !== 'resolved' && a.severity === 'warning')) return 4;
  return alerts.every((a) => a.status === 'resolved') ? 2 : 3;
}

const schema = z
  .strictObject({
    ...deliveryFields,
    type: z.literal('ntfy'),
    serverUrl: z
      .string()
      .default('https://ntfy.sh')
      .meta({ description: 'The ntfy server, e.g. https://ntfy.sh.' }),
    topic: secretField
      .refine((topic) => /^[-\w]{1,64}$/.test(topic.reveal()), {
        message: 'expected a topic of 1 to 64 letters, digits, "-" or "_"',
      })
      .meta({
        description: 'Topic (secret: on a public server it is what keeps others out), e.g. ${NTFY_TOPIC}.',
      }),
    token: secretField
      .optional()
      .meta({ description: 'Access token (tk_…) for a protected topic, e.g. ${NTFY_TOKEN}.' }),
  })
  .superRefine((channel, ctx) =>
    // Wrapped only for the check: the topic and token travel to this server.
    checkEndpoint(
      new Secret(channel.serverUrl),
      { field: 'serverUrl', example: 'https://ntfy.sh', allowAnyHost: false },
      ctx,
    ),
  );

export function renderNtfyMessage(message: OutgoingMessage) {
  const group = message.alerts.length > 1;
  let click: string | undefined;
  const { shown, moreLine } = fitPlainAlerts(
    message,
    plain,
    {
      maxAlerts: 20,
      totalChars: NTFY_LIMITS.messageBytes - 200,
      titleChars: 300,
      detailChars: [2_500, 400],
      bodyChars: [1_500, 200],
    },
    (text) => {
      click ??= text.url;
      return text.details === ''
        ? `${text.mark} ${text.title}`
        : `${text.mark} ${text.title}\n${text.details}`;
    },
    (section) => Buffer.byteLength(section) + 2,
  );
  const first = message.alerts[0];
  const title = group || first === undefined ? messageHeading(message) : first.title;
  return {
    title: escapeCut(plain, title.replace(/\s+/g, ' '), NTFY_LIMITS.titleChars),
    message: [...shown, ...(moreLine === undefined ? [] : [moreLine])].join('\n\n'),
    priority: priorityOf(message.alerts),
    markdown: false,
    ...(click === undefined ? {} : { click }),
  };
}

function classify(answer: HttpAnswer): Verdict {
  const verdict = classifyStatus(answer, 'ntfy', REFUSING);
  if (answer.status === 429 && verdict.outcome === 'retry' && verdict.retryAfterMs === undefined) {
    return { ...verdict, retryAfterMs: DEFAULT_WAIT_MS };
  }
  return verdict;
}

export function createNtfyNotifier(options: {
  id: string;
  serverUrl: string;
  topic: Secret;
  token?: Secret | undefined;
  dispatcher?: Dispatcher | undefined;
}) {
  const { token } = options;
  return createHttpNotifier({
    id: options.id,
    type: 'ntfy',
    secrets: token === undefined ? [options.topic] : [options.topic, token],
    dispatcher: options.dispatcher,
    render: (message) => ({
      url: `${options.serverUrl.replace(/\/+$/, '')}/`,
      ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token.reveal()}` } }),
      json: { topic: options.topic.reveal(), ...renderNtfyMessage(message) },
    }),
    classify,
  });
}

export const ntfyChannel = defineChannel({
  type: 'ntfy',
  schema,
  pace: (config) => ({ minIntervalMs: MIN_INTERVAL_MS, paceKey: endpointKey('ntfy', config.serverUrl) }),
  create: (config, deps) =>
    createNtfyNotifier({
      id: config.id,
      serverUrl: config.serverUrl,
      topic: config.topic,
      token: config.token,
      dispatcher: deps.dispatcher,
    }),
});
