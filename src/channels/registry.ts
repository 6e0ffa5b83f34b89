/**
 * Every delivery channel shelfwatch knows, one line each. The config schema (and so the JSON
 * Schema and `validate`), pacing and notifier construction all read this list: adding a channel is
 * its file, its test and one line here.
 */
import { z } from 'zod';
import { discordChannel } from './discord.ts';
import { emailChannel } from './email.ts';
import { logChannel } from './log.ts';
import { ntfyChannel } from './ntfy.ts';
import { outboxChannel } from './outbox.ts';
import type { ChannelDeps, ChannelPace, ChannelPlugin, ChannelSchema } from './plugin.ts';
import { slackChannel } from './slack.ts';
import { teamsChannel } from './teams.ts';
import { telegramChannel } from './telegram.ts';
import { webhookChannel } from './webhook.ts';

// biome-ignore format: one line per channel, so adding one is a one-line change.
export const CHANNELS = [
  logChannel,
  slackChannel,
  emailChannel,
  outboxChannel,
  webhookChannel,
  discordChannel,
  teamsChannel,
  telegramChannel,
  ntfyChannel,
] as const;

type SchemasOf<T extends readonly ChannelPlugin<ChannelSchema>[]> = {
  -readonly [K in keyof T]: T[K] extends ChannelPlugin<infer S> ? S : never;
};

/** The `channels[]` item: one strict object per channel type, told apart by `type`. */
export const channelSchema = z.discriminatedUnion(
  'type',
  CHANNELS.map((channel) => channel.schema) as SchemasOf<typeof CHANNELS>,
);
export type ChannelConfig = z.output<typeof channelSchema>;
export type ChannelType = ChannelConfig['type'];

const byType = new Map<string, ChannelPlugin>(CHANNELS.map((channel) => [channel.type, channel]));

function pluginOf(config: ChannelConfig): ChannelPlugin {
  const plugin = byType.get(config.type);
  if (plugin === undefined) throw new Error(`no channel plug-in for type "${config.type}"`);
  return plugin;
}

/** Each plug-in gets its own config: `channelSchema` picked the plug-in's schema by this `type`. */
export function createChannelNotifier(config: ChannelConfig, deps: ChannelDeps) {
  return pluginOf(config).create(config, deps);
}

export function channelPace(config: ChannelConfig): ChannelPace {
  return pluginOf(config).pace(config);
}
