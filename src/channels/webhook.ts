// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * A generic webhook for n8n, Zapier, Make or a service of one's own: each message is POSTed as
 * versioned JSON (`version: 1`) and signed the Standard Webhooks way (what Svix sends):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, so the
 * receiver can check the sender and refuse replays older than a few minutes. The id is the
 * message's own: a re-send after a timeout carries the same id, for the receiver to drop.
 */
import { createHmac } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { checkEndpoint, deliveryFields } from '../config-kit/channel-fields.ts';
import { secretField, secretUrlField } from '../config-kit/fields.ts';
import type { Secret } from '../config-kit/secret.ts';
import type { Alert } from '../model/alert.ts';
import type { Clock } from '../util/clock.ts';
import { classifyStatus, createHttpNotifier } from './http-channel.ts';
import type { OutgoingMessage } from './notifier.ts';
import { defineChannel, endpointKey } from './plugin.ts';
import { alertCount, cutStrings } from './render/plain.ts';

export const WEBHOOK_PAYLOAD_VERSION = 1;
export const WEBHOOK_LIMITS = { alerts: 50, stringChars: 2_000, bodyChars: 200_000 } as const;
const REFUSING = new Set([401, 403, 404, 410]);
const MIN_SECRET_CHARS = 16;

const schema = z
  .strictObject({
    ...deliveryFields,
    type: z.literal('webhook'),
    url: secretUrlField(['https', 'http'], 'https://n8n.example.com/webhook/shelfwatch').meta({
      description:
        'Where alerts are POSTed (secret: such URLs often carry a token), e.g. ${ALERT_WEBHOOK_URL}.',
    }),
    secret: secretField
      .refine((s) => s.reveal().length >= MIN_SECRET_CHARS, {
        message: `expected a signing secret of at least ${MIN_SECRET_CHARS} characters`,
      })
      .meta({
        description:
          'Signing secret (Standard Webhooks: "whsec_" + base64, or any long text), e.g. ${WEBHOOK_SECRET}.',
      }),
  })
  .superRefine((channel, ctx) =>
    checkEndpoint(channel.url, { field: 'url', example: 'https://…', allowAnyHost: false }, ctx),
  );

/** The key's bytes: base64 after `whsec_` (Standard Webhooks), else the text itself. */
function keyBytes(secret: Secret): Buffer {
  const text = secret.reveal();
  return text.startsWith('whsec_') ? Buffer.from(text.slice('whsec_'.length), 'base64') : Buffer.from(text);
}

export function signWebhook(secret: Secret, id: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', keyBytes(secret)).update(`${id}.${timestampS}.${body}`).digest('base64');
  return `v1,${mac}`;
}

function alertJson(alert: Alert) {
  const { fingerprint, workspace, ruleId, kind, severity, status, subject, observedAt } = alert;
  return cutStrings(
    {
      fingerprint,
      workspace,
      ruleId,
      kind,
      severity,
      status,
      title: alert.title,
      subject,
      facts: alert.facts,
      observedAt,
    },
    WEBHOOK_LIMITS.stringChars,
  );
}

export function webhookPayload(message: OutgoingMessage, channel: string) {
  const alerts: unknown[] = [];
  let size = 0;
  for (const alert of message.alerts.slice(0, WEBHOOK_LIMITS.alerts)) {
    const json = alertJson(alert);
    const n = JSON.stringify(json).length;
    if (size + n > WEBHOOK_LIMITS.bodyChars && alerts.length > 0) break;
    alerts.push(json);
    size += n;
  }
  const total = alertCount(message);
  return {
    version: WEBHOOK_PAYLOAD_VERSION,
    type: 'alerts',
    messageId: message.messageId,
    channel,
    totalCount: total,
    more: total - alerts.length,
    alerts,
  };
}

export const webhookChannel = defineChannel({
  type: 'webhook',
  schema,
  // No limit is documented for a receiver of one's own: one endpoint, no pause between messages.
  pace: (config) => ({ minIntervalMs: 0, paceKey: endpointKey('webhook', config.url.reveal()) }),
  create: (config, deps) =>
    createWebhookNotifier({
      id: config.id,
      url: config.url,
      secret: config.secret,
      clock: deps.clock,
      dispatcher: deps.dispatcher,
    }),
});

export function createWebhookNotifier(options: {
  id: string;
  url: Secret;
  secret: Secret;
  clock: Clock;
  dispatcher?: Dispatcher | undefined;
}) {
  return createHttpNotifier({
    id: options.id,
    type: 'webhook',
    secrets: [options.url, options.secret],
    dispatcher: options.dispatcher,
    render: (message) => ({ url: options.url.reveal(), json: webhookPayload(message, options.id) }),
    sign: (body, message) => {
      const timestamp = Math.floor(options.clock.now() / 1000);
      return {
        'webhook-id': message.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(options.secret, message.messageId, timestamp, body),
      };
    },
    classify: (answer) => classifyStatus(answer, 'The webhook', REFUSING),
  });
}
