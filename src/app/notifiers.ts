import type { ChannelConfig } from '../config/schema.ts';
import { createLogNotifier } from '../deliver/channels/log.ts';
import { createSlackNotifier } from '../deliver/channels/slack.ts';
import type { Notifier } from '../deliver/notifier.ts';
import type { Logger } from '../ops/logger.ts';

/** A channel type the config accepts but this build cannot deliver through yet. */
export class UnsupportedChannelError extends Error {
  override readonly name = 'UnsupportedChannelError';
}

/** One notifier per configured channel. Tests pass their own (a capturing one) instead. */
export function createNotifiers(channels: readonly ChannelConfig[], logger: Logger): Map<string, Notifier> {
  const notifiers = new Map<string, Notifier>();
  for (const channel of channels) {
    switch (channel.type) {
      case 'log':
        notifiers.set(channel.id, createLogNotifier(channel.id, logger.child({ channel: channel.id })));
        break;
      case 'slack':
        notifiers.set(channel.id, createSlackNotifier({ id: channel.id, webhookUrl: channel.webhookUrl }));
        break;
      default:
        throw new UnsupportedChannelError(
          `channels: "${channel.id}" is of type ${channel.type}, which this version does not deliver yet; use type: log`,
        );
    }
  }
  return notifiers;
}
