import type { ChannelConfig } from '../config/schema.ts';
import { createEmailNotifier } from '../deliver/channels/email.ts';
import { createLogNotifier } from '../deliver/channels/log.ts';
import { createOutboxNotifier } from '../deliver/channels/outbox.ts';
import { createSlackNotifier } from '../deliver/channels/slack.ts';
import type { SmtpPool } from '../deliver/channels/smtp-pool.ts';
import type { Notifier } from '../deliver/notifier.ts';
import type { Logger } from '../ops/logger.ts';
import type { Clock } from '../util/clock.ts';

/** One notifier per configured channel. Email channels share the process's one SMTP pool. */
export function createNotifiers(
  channels: readonly ChannelConfig[],
  deps: { logger: Logger; smtp: SmtpPool; clock: Clock },
): Map<string, Notifier> {
  const notifiers = new Map<string, Notifier>();
  for (const channel of channels) {
    const logger = deps.logger.child({ channel: channel.id });
    switch (channel.type) {
      case 'log':
        notifiers.set(channel.id, createLogNotifier(channel.id, logger));
        break;
      case 'slack':
        notifiers.set(channel.id, createSlackNotifier({ id: channel.id, webhookUrl: channel.webhookUrl }));
        break;
      case 'email':
        notifiers.set(
          channel.id,
          createEmailNotifier({
            id: channel.id,
            smtpUrl: channel.smtpUrl,
            allowInsecure: channel.allowInsecure,
            from: channel.from,
            to: channel.to,
            ...(channel.listUnsubscribe === undefined ? {} : { listUnsubscribe: channel.listUnsubscribe }),
            pool: deps.smtp,
            logger,
          }),
        );
        break;
      case 'outbox':
        notifiers.set(
          channel.id,
          createOutboxNotifier({ id: channel.id, dir: channel.dir, clock: deps.clock }),
        );
        break;
    }
  }
  return notifiers;
}
