import type { Logger } from '../../ops/logger.ts';
import { oneLine } from '../../util/one-line.ts';
import type { Notifier, OutgoingMessage } from '../notifier.ts';

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
            facts: alert.facts,
          },
          // The message is the line people read (pretty-printed, it is printed as it is).
          oneLine(alert.title),
        );
      }
    },
  };
}
