// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/** Where alerts go: channels, the routes that pick them, and the daily digest. */
import { z } from 'zod';
import { asinSchema } from '../api/index.ts';
import { type ChannelConfig, channelSchema } from '../channels/registry.ts';
import { channelId } from '../config-kit/channel-fields.ts';
import { boolField, clockTimeField, idField, timeZoneField, uniqueList } from '../config-kit/fields.ts';
import { ALERT_KINDS } from '../model/alert.ts';
import { severitySchema } from '../rules/config.ts';

// Each channel's schema lives in its own file (src/channels/); the registry composes them.
export { type ChannelConfig, channelSchema };
export type SlackChannelConfig = Extract<ChannelConfig, { type: 'slack' }>;
export type EmailChannelConfig = Extract<ChannelConfig, { type: 'email' }>;

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
