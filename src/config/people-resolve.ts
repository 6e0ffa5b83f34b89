/** People as the running process sees them: their zones resolved, their destinations as channels. */
import { DIGEST_CHAT_TYPES } from '../channels/digest-message.ts';
import type { ChannelConfig } from '../channels/registry.ts';
import {
  mailChannelOf,
  type PeopleConfig,
  type PersonConfig,
  personChannelId,
  personMailChannelId,
  type Role,
  type SubscriptionConfig,
} from './people.ts';

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
