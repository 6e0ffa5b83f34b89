/**
 * Fields every channel's config shares (id, grouping, quiet hours) and the check for an HTTP
 * endpoint that carries a credential. Each channel's own schema lives in its file under
 * src/channels/ and is built from these; the registry composes them into the config.
 */
import { z } from 'zod';
import { ALERT_KINDS, type AlertKind } from '../model/alert.ts';
import { duration } from '../rules/config.ts';
import { boolField, clockTimeField, idField, localeField, secretUrlField, timeZoneField } from './fields.ts';
import { Secret } from './secret.ts';
import { isLoopbackHost } from './transport-security.ts';

export const channelId = idField('a channel');

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

const groupWindowSchema = z
  .strictObject({
    groupWait: duration.optional().meta({ description: "This kind's groupWait (default: the channel's)." }),
    groupInterval: duration
      .optional()
      .meta({ description: "This kind's groupInterval (default: the channel's)." }),
  })
  .meta({ description: "How this alert kind's group batches on this channel." });

export type GroupWindow = z.output<typeof groupWindowSchema>;

/**
 * Per alert kind, a group window other than the channel's: reviews within seconds on a launch day
 * while rank drops still group for minutes. A strict object with one optional key per kind (not a
 * record), so an unknown kind is an "unknown key" with a did-you-mean like any other.
 */
const groupWindowsSchema = z
  .strictObject(
    Object.fromEntries(ALERT_KINDS.map((kind) => [kind, groupWindowSchema.optional()])) as Record<
      AlertKind,
      z.ZodOptional<typeof groupWindowSchema>
    >,
  )
  .meta({
    description:
      'Per alert kind (see docs/alerts.md for the kinds): groupWait and/or groupInterval for that kind on this channel.',
  });

export const deliveryFields = {
  id: channelId,
  groupWait: duration
    .prefault('30s')
    .meta({ description: 'How long the first alert of a group waits for others before it is sent.' }),
  groupInterval: duration
    .prefault('5m')
    .meta({ description: 'How long after a message the next one for the same group may follow.' }),
  groupWindows: groupWindowsSchema.optional(),
  quietHours: quietHoursSchema.optional(),
  timeZone: timeZoneField.optional().meta({
    description:
      "Zone of the times in this channel's messages. Default: the workspaces' zone (UTC if they differ).",
  }),
  locale: localeField.optional().meta({
    description: "Locale of the dates in this channel's messages, such as de-DE (Intl). Default: en-GB.",
  }),
};

/** `allowAnyHost`: for endpoints whose host is known (Slack, Discord, Teams). */
export function allowAnyHostField(usualHost: string) {
  return boolField()
    .prefault(false)
    .meta({ description: `Allow a host other than ${usualHost} (a proxy, a test receiver).` });
}

export interface EndpointRule {
  /** The config key of the URL, for the problem's path. */
  field: string;
  /** Hosts this service uses; undefined = any host. */
  hostAllowed?: (hostname: string) => boolean;
  usualHost?: string;
  example: string;
  /** The channel's `allowAnyHost` (another host, and plain http to this machine). */
  allowAnyHost: boolean;
}

/**
 * The one rule for every channel URL (webhooks, the Telegram Bot API, an ntfy server): a URL, http
 * or https, and https unless it stays on this machine, where tests and the demo run stand-in
 * receivers (plain http would send the token in clear); on the service's own hosts unless
 * `allowAnyHost`. Problems name the scheme or host, never the URL.
 */
export function checkEndpoint(secret: unknown, rule: EndpointRule, ctx: z.RefinementCtx): void {
  // Raw text here means the field's own check already reported it.
  if (!(secret instanceof Secret)) return;
  const problem = (message: string, hint = `such as ${rule.example}`) =>
    ctx.addIssue({ code: 'custom', path: [rule.field], message, params: { hint } });
  const url = URL.parse(secret.reveal().trim());
  if (url === null) {
    problem('expected an http(s) URL, got text that is not a URL');
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problem(`expected an http(s) URL, got a URL starting with "${url.protocol}//"`);
    return;
  }
  const loopback = isLoopbackHost(url.hostname);
  const anyHost = rule.allowAnyHost || rule.hostAllowed === undefined;
  if (url.protocol !== 'https:' && !(anyHost && loopback)) {
    problem(`expected an https URL, got a URL starting with "${url.protocol}//"`);
  } else if (rule.hostAllowed !== undefined && !rule.allowAnyHost && !rule.hostAllowed(url.hostname)) {
    problem(
      `expected a URL on ${rule.usualHost ?? 'the service'}, got host "${url.hostname}"`,
      'set allowAnyHost: true to post to another host, such as a proxy or a test receiver',
    );
  }
}

/** What sets apart a channel that posts to one secret webhook URL on its service's hosts. */
export interface WebhookUrlChannel<T extends string> {
  type: T;
  /** The field's description in the JSON Schema and docs. */
  description: string;
  /** A whole URL for the field's own message, and a shortened one for endpoint problems. */
  example: string;
  shortExample: string;
  usualHost: string;
  hostAllowed: (hostname: string) => boolean;
}

/**
 * The config of a webhook-URL channel (Discord, Slack, Teams): the shared fields, the URL (a
 * secret: it is the credential) and `allowAnyHost`, with the URL checked by `checkEndpoint`.
 */
export function webhookUrlChannelSchema<T extends string>(channel: WebhookUrlChannel<T>) {
  return z
    .strictObject({
      ...deliveryFields,
      type: z.literal(channel.type),
      webhookUrl: secretUrlField(['https', 'http'], channel.example).meta({
        description: channel.description,
      }),
      allowAnyHost: allowAnyHostField(channel.usualHost),
    })
    .superRefine((config, ctx) =>
      checkEndpoint(
        config.webhookUrl,
        {
          field: 'webhookUrl',
          hostAllowed: channel.hostAllowed,
          usualHost: channel.usualHost,
          example: channel.shortExample,
          allowAnyHost: config.allowAnyHost,
        },
        ctx,
      ),
    );
}
