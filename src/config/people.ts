// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * People and their subscriptions (`people:` in the config). A person is an account of the console
 * (role, sign-in) and a recipient: their own alerts, in their zone and locale, by email (through
 * the SMTP server of one configured email channel) and optionally through a destination of their
 * own. Routes stay for team channels; subscriptions say what reaches a person. The config's
 * `resolve` turns each person's destinations into channels (`person-ID`, `person-ID-mail`), so
 * grouping, pacing, quiet hours, dead letters and silences treat them like any other channel.
 */
import { z } from 'zod';
import { asinSchema } from '../api/index.ts';
import { DIGEST_CHAT_TYPES } from '../channels/digest-message.ts';
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
import { checkReference, checkUnique, recordAt, stringsAt } from './references.ts';

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
function mailChannelOf(people: Record<string, unknown>, channels: unknown[]): string | undefined {
  if (typeof people.mailChannel === 'string') return people.mailChannel;
  const emails = channels.filter((channel) => recordAt(channel).type === 'email');
  return emails.length === 1 ? (stringsAt(emails, 'id')[0] ?? undefined) : undefined;
}

/** Books by workspace, for the check of a subscription's ASINs and author (partly valid input). */
function booksOf(workspaces: unknown): Map<string, { asin?: string; author?: string }[]> {
  const out = new Map<string, { asin?: string; author?: string }[]>();
  for (const ws of Array.isArray(workspaces) ? workspaces : []) {
    const { id, books } = recordAt(ws);
    if (typeof id !== 'string') continue;
    out.set(
      id,
      (Array.isArray(books) ? books : []).map((book) => {
        const { asin, author } = recordAt(book);
        return {
          ...(typeof asin === 'string' ? { asin } : {}),
          ...(typeof author === 'string' ? { author: author.trim() } : {}),
        };
      }),
    );
  }
  return out;
}

/** Cross-references of `people:` against the rest of the config (read defensively: it may be invalid). */
export function checkPeople(raw: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const people = recordAt(raw.people);
  const channels = Array.isArray(raw.channels) ? (raw.channels as unknown[]) : [];
  const accounts = Array.isArray(people.accounts) ? (people.accounts as unknown[]) : [];
  const personIds = stringsAt(accounts, 'id');
  checkUnique(personIds, ['people', 'accounts'], 'person', ctx);
  const channelIds = stringsAt(channels, 'id');
  personIds.forEach((id, index) => {
    if (id === undefined) return;
    for (const taken of [personChannelId(id), personMailChannelId(id)]) {
      if (channelIds.includes(taken))
        ctx.addIssue({
          code: 'custom',
          path: ['people', 'accounts', index, 'id'],
          message: `expected a person id whose channel name is free, got "${id}" (channels has "${taken}")`,
          params: { hint: 'rename the channel or the person' },
        });
    }
  });

  const mail = mailChannelOf(people, channels);
  const emailChannels = channelIds.filter(
    (id, index) => id !== undefined && recordAt(channels[index]).type === 'email',
  ) as string[];
  if (typeof people.mailChannel === 'string')
    checkReference(people.mailChannel, emailChannels, ['people', 'mailChannel'], 'email channel', ctx);

  const books = booksOf(raw.workspaces);
  const known = personIds.filter((id) => id !== undefined);
  const subscriptions = Array.isArray(people.subscriptions) ? (people.subscriptions as unknown[]) : [];
  subscriptions.forEach((item, index) => {
    const sub = recordAt(item);
    const path = ['people', 'subscriptions', index];
    checkReference(sub.person, known, [...path, 'person'], 'person', ctx);
    checkReference(sub.workspace, [...books.keys()], [...path, 'workspace'], 'workspace', ctx);
    const inScope = [...books]
      .filter(([ws]) => typeof sub.workspace !== 'string' || ws === sub.workspace)
      .flatMap(([, list]) => list);
    const asins = [...new Set(inScope.flatMap((book) => (book.asin === undefined ? [] : [book.asin])))];
    if (Array.isArray(sub.asin))
      sub.asin.forEach((asin: unknown, at) => {
        checkReference(asin, asins, [...path, 'asin', at], 'book (ASIN)', ctx);
      });
    const authors = [...new Set(inScope.flatMap((book) => (book.author === undefined ? [] : [book.author])))];
    if (typeof sub.author === 'string')
      checkReference(sub.author.trim(), authors, [...path, 'author'], 'author', ctx);
    const person = recordAt(accounts[known.indexOf(String(sub.person))]);
    const byEmail =
      sub.via === 'email' ||
      (sub.digest === true && sub.via !== 'channel') ||
      (sub.via === undefined && person.channel === undefined);
    if (byEmail && mail === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['people', 'mailChannel'],
        message: `expected an email channel for people's mail (subscriptions[${index}] sends email), got ${emailChannels.length === 0 ? 'none' : `${emailChannels.length} without a choice`}`,
        params: { hint: 'add an email channel, or name one in people.mailChannel' },
      });
    if (sub.via === 'channel' && typeof sub.person === 'string' && person.channel === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'via'],
        message: `expected via: email, or a channel on person "${sub.person}", got via: channel and no channel`,
        params: { hint: 'give the person a channel, or leave via out' },
      });
  });
}

/** A person as the rest of shelfwatch sees them: zone resolved, their channels named. */
export interface Person {
  id: string;
  name: string;
  email: string;
  timeZone: string;
  locale: string;
  role: Role;
  /** Their own channel's id (`person-ID`), when they have one. */
  channelId?: string;
  /** Their email channel's id (`person-ID-mail`), when people's mail has an email channel. */
  mailChannelId?: string;
  token?: PersonConfig['token'];
}

export interface ResolvedPeople {
  accounts: Person[];
  subscriptions: SubscriptionConfig[];
}

/**
 * Each person's destinations as channels (appended to `channels`), their digest subscriptions as
 * digest recipients, and the people with their zones and channel ids.
 */
export function resolvePeople(
  people: PeopleConfig,
  channels: readonly ChannelConfig[],
  defaultTimeZone: string,
): {
  people: ResolvedPeople;
  channels: ChannelConfig[];
  recipients: { person: string; workspace: string | undefined; channel: string; timeZone: string }[];
} {
  const mailId = mailChannelOf(people as unknown as Record<string, unknown>, [...channels]);
  const mail = channels.find((channel) => channel.id === mailId && channel.type === 'email');
  const added: ChannelConfig[] = [];
  const accounts = people.accounts.map((config): Person => {
    const timeZone = config.timeZone ?? defaultTimeZone;
    const person: Person = {
      id: config.id,
      name: config.name,
      email: config.email,
      timeZone,
      locale: config.locale,
      role: config.role,
      ...(config.token === undefined ? {} : { token: config.token }),
    };
    if (config.channel !== undefined) {
      person.channelId = personChannelId(config.id);
      added.push({
        ...config.channel,
        id: person.channelId,
        timeZone,
        locale: config.locale,
      } as ChannelConfig);
    }
    if (mail !== undefined && mail.type === 'email') {
      person.mailChannelId = personMailChannelId(config.id);
      // The team channel's quiet hours and List-Unsubscribe are the team's, not this person's.
      const { quietHours: _quiet, listUnsubscribe: _list, ...server } = mail;
      added.push({
        ...server,
        id: person.mailChannelId,
        to: [config.email],
        timeZone,
        locale: config.locale,
      });
    }
    return person;
  });
  // The digest goes by email (the full report) and, compact, through the person's own channel
  // when it can show one (Slack, Discord, Teams); `via` keeps only one of the two.
  const ownTypes = new Map(people.accounts.map((p) => [p.id, p.channel?.type]));
  const recipients = people.subscriptions.flatMap((sub) => {
    const person = accounts.find((p) => p.id === sub.person);
    if (!sub.digest || person === undefined) return [];
    const own = DIGEST_CHAT_TYPES.includes(String(ownTypes.get(person.id))) ? person.channelId : undefined;
    const channels = [
      sub.via === 'email' ? undefined : own,
      sub.via === 'channel' && own !== undefined ? undefined : person.mailChannelId,
    ].filter((id) => id !== undefined);
    return channels.map((channel) => ({
      person: person.id,
      workspace: sub.workspace,
      channel,
      timeZone: person.timeZone,
    }));
  });
  return { people: { accounts, subscriptions: people.subscriptions }, channels: added, recipients };
}
