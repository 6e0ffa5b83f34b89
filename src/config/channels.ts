// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/** Where alerts go: channels, the routes that pick them, and the daily digest. */
import { z } from 'zod';
import { asinSchema } from '../api/schemas.ts';
import { ALERT_KINDS } from '../model/alert.ts';
import { duration, severitySchema } from '../rules/config.ts';
import {
  boolField,
  clockTimeField,
  emailField,
  hostOf,
  idField,
  secretUrlField,
  timeZoneField,
  uniqueList,
} from './fields.ts';
import { isLoopbackHost } from './transport-security.ts';

const SLACK_HOST = 'hooks.slack.com';

const channelId = idField('a channel');

/**
 * How a channel batches and when it stays quiet (Alertmanager's group_wait / group_interval):
 * alerts for the same channel and group within the window become one message.
 */
const quietHoursSchema = z
  .strictObject({
    start: clockTimeField,
    end: clockTimeField,
    timeZone: timeZoneField.default('UTC'),
  })
  .meta({ description: 'Non-critical alerts are held and sent together when the quiet hours end.' });

const deliveryFields = {
  groupWait: duration
    .prefault('30s')
    .meta({ description: 'How long the first alert of a group waits for others before it is sent.' }),
  groupInterval: duration
    .prefault('5m')
    .meta({ description: 'How long after a message the next one for the same group may follow.' }),
  quietHours: quietHoursSchema.optional(),
};

const logChannel = z.strictObject({ id: channelId, type: z.literal('log'), ...deliveryFields });

const slackChannel = z
  .strictObject({
    id: channelId,
    type: z.literal('slack'),
    ...deliveryFields,
    webhookUrl: secretUrlField(['https', 'http'], 'https://hooks.slack.com/services/T000/B000/XXXX').meta({
      description: 'Incoming-webhook URL (secret), e.g. ${SLACK_WEBHOOK_URL}.',
    }),
    allowAnyHost: boolField()
      .prefault(false)
      .meta({ description: 'Allow a webhook host other than hooks.slack.com (a proxy, a test receiver).' }),
  })
  .superRefine((channel, ctx) => {
    const url = hostOf(channel.webhookUrl);
    if (url === undefined) return;
    // Plain http would send the webhook token in clear; it is only tolerated on this machine,
    // where tests and the demo run their stand-in receiver.
    const loopback = isLoopbackHost(url.hostname);
    if (url.protocol !== 'https:' && !(channel.allowAnyHost && loopback)) {
      ctx.addIssue({
        code: 'custom',
        path: ['webhookUrl'],
        message: `expected an https URL, got a URL starting with "${url.protocol}//"`,
        params: { hint: 'Slack webhooks look like https://hooks.slack.com/services/…' },
      });
    } else if (url.hostname !== SLACK_HOST && !channel.allowAnyHost) {
      ctx.addIssue({
        code: 'custom',
        path: ['webhookUrl'],
        message: `expected a URL on ${SLACK_HOST}, got host "${url.hostname}"`,
        params: {
          hint: 'set allowAnyHost: true to post to another host, such as a proxy or a test receiver',
        },
      });
    }
  });

const emailChannel = z.strictObject({
  id: channelId,
  type: z.literal('email'),
  ...deliveryFields,
  smtpUrl: secretUrlField(['smtp', 'smtps'], 'smtps://user:password@smtp.example.com:465').meta({
    description:
      'SMTP server with credentials (secret), e.g. ${SMTP_URL}. smtp:// off this machine must upgrade with STARTTLS.',
  }),
  allowInsecure: boolField().prefault(false).meta({
    description:
      'Allow smtp:// off this machine without STARTTLS (the password and mail travel unencrypted).',
  }),
  from: emailField,
  to: uniqueList(emailField, 'address').min(1, 'expected at least one address'),
  listUnsubscribe: z
    .string()
    .trim()
    .regex(/^(https:\/\/|mailto:)\S+$/, 'expected an https:// URL or a mailto: address')
    .optional()
    .meta({
      description:
        'List-Unsubscribe header: an https URL or mailto: address that really removes the recipient (your list manager). Without it no header is sent: shelfwatch has no endpoint of its own to honour one.',
    }),
});

const outboxChannel = z.strictObject({
  id: channelId,
  type: z.literal('outbox'),
  ...deliveryFields,
  dir: z
    .string()
    .trim()
    .min(1, 'expected a directory path')
    .meta({ description: 'Alerts are written here as files.' }),
});

export const channelSchema = z.discriminatedUnion('type', [
  logChannel,
  slackChannel,
  emailChannel,
  outboxChannel,
]);
export type ChannelConfig = z.output<typeof channelSchema>;
export type SlackChannelConfig = z.output<typeof slackChannel>;
export type EmailChannelConfig = z.output<typeof emailChannel>;

export const DEFAULT_CHANNELS: z.input<typeof channelSchema>[] = [{ id: 'log', type: 'log' }];

const routeMatch = z.strictObject({
  workspace: idField('a workspace').optional(),
  asin: uniqueList(asinSchema, 'ASIN').min(1, 'expected at least one ASIN').optional(),
  author: z.string().trim().min(1, 'expected an author name').optional(),
  kind: uniqueList(z.enum(ALERT_KINDS), 'kind').min(1, 'expected at least one alert kind').optional(),
  severity: uniqueList(severitySchema, 'severity').min(1, 'expected at least one severity').optional(),
});

export const routeSchema = z.strictObject({
  match: routeMatch.prefault({}).meta({ description: 'All given conditions must hold; none = every alert.' }),
  channels: uniqueList(channelId, 'channel').min(1, 'expected at least one channel'),
  digestOnly: boolField()
    .prefault(false)
    .meta({ description: 'Collect matching alerts for the digest instead of sending them one by one.' }),
  hideLowStarText: boolField()
    .prefault(false)
    .meta({ description: 'Leave out the text of low-star reviews (the rating is still shown).' }),
});
export type RouteConfig = z.output<typeof routeSchema>;

const recipientSchema = z.strictObject({
  workspace: idField('a workspace'),
  channel: channelId,
  timeZone: timeZoneField.optional().meta({ description: "Default: the workspace's time zone." }),
});

export const digestSchema = z.strictObject({
  // A digest block that is written down is meant to be on; leaving the block out turns it off.
  enabled: boolField().prefault(true),
  time: clockTimeField.default('08:00').meta({ description: "Local time of day in each recipient's zone." }),
  recipients: z.array(recipientSchema).default([]),
});
