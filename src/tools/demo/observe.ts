/**
 * How the demo watches the real engine without changing it: the configured notifiers are wrapped
 * so each confirmed send is counted (with the alerts it carried), and the poll worker's events
 * count outcomes. Nothing here alters what is sent or how.
 */
import type { Worker } from 'bullmq';
import { createNotifiers } from '../../app/notifiers.ts';
import type { Notifier } from '../../channels/notifier.ts';
import type { SmtpPool } from '../../channels/smtp-pool.ts';
import type { ChannelConfig } from '../../config/schema.ts';
import type { Logger } from '../../ops/logger.ts';
import type { Clock } from '../../util/clock.ts';
import type { DemoTracker } from './tracker.ts';

export function observedNotifiers(
  channels: readonly ChannelConfig[],
  deps: { logger: Logger; smtp: SmtpPool; clock: Clock },
  tracker: DemoTracker,
): Map<string, Notifier> {
  const observed = new Map<string, Notifier>();
  for (const [id, notifier] of createNotifiers(channels, deps)) {
    observed.set(id, {
      id: notifier.id,
      type: notifier.type,
      async send(message, signal) {
        await notifier.send(message, signal);
        tracker.recordSent(id, notifier.type, message.alerts);
      },
      close: () => notifier.close?.() ?? Promise.resolve(),
    });
  }
  return observed;
}

/** Counts each finished poll by outcome; a deferred poll (budget, 429) is a delay, not a failure. */
export function observePolls(poll: Worker, tracker: DemoTracker): void {
  poll.on('completed', (job, result: unknown) => {
    const data: unknown = job.data;
    const targetId =
      typeof data === 'object' && data !== null && 'targetId' in data ? String(data.targetId) : '';
    tracker.recordPoll(targetId, result);
  });
  poll.on('failed', (_job, error) => {
    if (error.name === 'DelayedError') tracker.recordDeferral();
    else tracker.recordPollFailure();
  });
}
