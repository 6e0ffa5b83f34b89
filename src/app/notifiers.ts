import type { Notifier } from '../channels/notifier.ts';
import type { ChannelDeps } from '../channels/plugin.ts';
import { createChannelNotifier } from '../channels/registry.ts';
import type { ChannelConfig } from '../config/schema.ts';

/** One notifier per configured channel, each built by its plug-in. Email channels share the process's one SMTP pool. */
export function createNotifiers(
  channels: readonly ChannelConfig[],
  deps: ChannelDeps,
): Map<string, Notifier> {
  const notifiers = new Map<string, Notifier>();
  for (const channel of channels) {
    const logger = deps.logger.child({ channel: channel.id });
    notifiers.set(channel.id, createChannelNotifier(channel, { ...deps, logger }));
  }
  return notifiers;
}
