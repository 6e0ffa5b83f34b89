import { z } from 'zod';
import { deliveryFields } from '../config-kit/channel-fields.ts';
import type { Logger } from '../ops/logger.ts';
import { oneLine } from '../util/one-line.ts';
import type { Notifier, OutgoingMessage } from './notifier.ts';
import { defineChannel, unpaced } from './plugin.ts';
import { cutStrings } from './render/plain.ts';
import { andMore } from './render/text.ts';

/** A 10,000-character review body is cut: one log line stays readable (and within log shippers' limits). */
const LOG_STRING_CHARS = 1_000;

/** Writes each alert as one structured log line: the default channel, and proof alerts flow. */
export function createLogNotifier(id: string, logger: Logger): Notifier {
  return {
    id,
    type: 'log',
    async send(message: OutgoingMessage) {
      for (const alert of message.alerts) {
        logger.info(
          {
            fingerprint: alert.fingerprint,
            workspace: alert.workspace,
            kind: alert.kind,
            severity: alert.severity,
            status: alert.status,
            subject: alert.subject,
            facts: cutStrings(alert.facts, LOG_STRING_CHARS),
          },
          // The message is the line people read (pretty-printed, it is printed as it is).
          oneLine(alert.title),
        );
      }
      const more = message.totalCount - message.alerts.length;
      if (more > 0) logger.info({ more }, andMore(more));
    },
  };
}

export const logChannel = defineChannel({
  type: 'log',
  schema: z.strictObject({ ...deliveryFields, type: z.literal('log') }),
  pace: unpaced,
  create: (config, deps) => createLogNotifier(config.id, deps.logger),
});
