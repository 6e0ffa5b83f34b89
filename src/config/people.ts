// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * People and their subscriptions (`people:` in the config). A person is an account of the console
 * (role, sign-in) and a recipient: their own alerts, in their zone and locale, by email (through
 * the SMTP server of one configured email channel) and optionally through a destination of their
 * own. Routes stay for team channels; subscriptions say what reaches a person. The config's
 * `resolve` turns each person's destinations into channels (`person-ID`, `person-ID-mail`), so
 * grouping, pacing, quiet hours, dead letters and silences treat them like any other channel.
 *
 * This file holds the schema and the names; the checks against the rest of the config are in
 * people-check.ts, the resolution into channels and recipients in people-resolve.ts.
 */
import { z } from 'zod';
import { asinSchema } from '../api/index.ts';
import { CHANNELS, type ChannelConfig } from '../channels/registry.ts';
import { channelId } from '../config-kit/channel-fields.ts';
import {
  boolField,
  emailField,
  idField,
  localeField,
  secretField,
  timeZoneField,
  uniqueList,
} from '../config-kit/fields.ts';
import { ALERT_KINDS, type Severity } from '../model/alert.ts';
import { severitySchema } from '../rules/config.ts';
import { recordAt, stringsAt } from './references.ts';

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Channel types a person may have as their own destination: one recipient each. */
const PERSONAL_TYPES = ['slack', 'discord', 'telegram', 'ntfy', 'webhook'] as const;

/** A channel's own schema with its id left out: the person's id names it. */
const personalChannelSchema = z.discriminatedUnion(
  'type',
  CHANNELS.filter((plugin) => (PERSONAL_TYPES as readonly string[]).includes(plugin.type)).map((plugin) =>
    // Widened to a plain object: safeExtend's types refuse turning a required key into "absent".
    (plugin.schema as z.ZodObject).safeExtend({
      id: z
        .unknown()
        .refine((id) => id === undefined, {
          message: "expected no id: a person's channel is named person-ID after the person",
        })
        .optional(),
    }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
/** A person's channel as parsed: a channel config of one of PERSONAL_TYPES, without its id. */
export type PersonalChannel = Omit<ChannelConfig, 'id'>;

/** A personal token signs in without email; long enough not to be guessed at 10 tries per 15 min. */
const MIN_TOKEN_LENGTH = 24;

const personSchema = z.strictObject({
  id: idField('a person'),
  name: z.string().trim().min(1, 'expected a name').max(200, 'expected a name of at most 200 characters'),
  email: emailField.meta({ description: 'Where their alerts, digest and sign-in links go.' }),
  timeZone: timeZoneField.optional().meta({
    description: "Zone of the times they read. Default: the workspaces' zone (UTC if they differ).",
  }),
  locale: localeField.default('en-GB').meta({ description: 'Locale of their dates, such as de-DE (Intl).' }),
  role: z
    .enum(ROLES)
    .default('member')
    .meta({ description: 'admin: edits the config; member: own subscriptions and silences; viewer: reads.' }),
  channel: personalChannelSchema
    .optional()
    .meta({ description: 'Their own Slack, Discord, Telegram, ntfy or webhook destination (no id).' }),
  token: secretField
    .refine((secret) => secret.reveal().length >= MIN_TOKEN_LENGTH, {
      message: `expected a personal token of at least ${MIN_TOKEN_LENGTH} characters`,
    })
    .optional()
    .meta({ description: 'A personal sign-in token for the console (secret), e.g. ${ANA_TOKEN}.' }),
});

const subscriptionSchema = z.strictObject({
  person: idField('a person'),
  workspace: idField('a workspace').optional().meta({ description: 'Default: every workspace.' }),
  asin: uniqueList(asinSchema, 'ASIN')
    .min(1, 'expected at least one ASIN')
    .optional()
    .meta({ description: 'These books only (a configured book each).' }),
  author: z
    .string()
    .trim()
    .min(1, 'expected an author name')
    .optional()
    .meta({ description: "Books with this author (a configured book's author)." }),
  kinds: uniqueList(z.enum(ALERT_KINDS), 'kind')
    .min(1, 'expected at least one alert kind')
    .optional()
    .meta({ description: 'Default: every kind.' }),
  minSeverity: severitySchema.default('info').meta({ description: 'The least severity that reaches them.' }),
  alerts: boolField().prefault(true).meta({ description: 'Send them the matching alerts.' }),
  digest: boolField().prefault(false).meta({
    description:
      "The daily digest in the person's zone: by email, and compact through their own channel when they have one (via picks one).",
  }),
  via: z.enum(['channel', 'email']).optional().meta({
    description: 'Their own channel, or email. Default: their channel when they have one, else email.',
  }),
});

export const peopleSchema = z.strictObject({
  mailChannel: channelId.optional().meta({
    description:
      "The email channel whose SMTP server and From address people's mail uses. Default: the only one.",
  }),
  accounts: z
    .array(personSchema)
    .default([])
    .meta({ description: 'People: recipients and console accounts.' }),
  subscriptions: z.array(subscriptionSchema).default([]).meta({ description: 'What reaches each person.' }),
});
export type PeopleConfig = z.output<typeof peopleSchema>;
export type PersonConfig = PeopleConfig['accounts'][number];
export type SubscriptionConfig = PeopleConfig['subscriptions'][number];

export const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };

export const personChannelId = (personId: string): string => `person-${personId}`;
export const personMailChannelId = (personId: string): string => `person-${personId}-mail`;

/** Which configured email channel carries people's mail: the named one, else the only one. */
export function mailChannelOf(people: Record<string, unknown>, channels: unknown[]): string | undefined {
  if (typeof people.mailChannel === 'string') return people.mailChannel;
  const emails = channels.filter((channel) => recordAt(channel).type === 'email');
  return emails.length === 1 ? (stringsAt(emails, 'id')[0] ?? undefined) : undefined;
}
