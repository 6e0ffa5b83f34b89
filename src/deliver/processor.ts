import type { Logger } from '../ops/logger.ts';
import type { Clock } from '../util/clock.ts';
import type { DedupLog } from './dedup.ts';
import type { DeliveryJobData } from './enqueue.ts';
import { DeliveryError, type Notifier } from './notifier.ts';

export interface DeliveryDeps {
  channels: ReadonlyMap<string, Notifier>;
  dedup: DedupLog;
  clock: Clock;
  logger: Logger;
}

export type DeliveryResult = { status: 'sent' | 'already_sent' | 'unknown_channel' };

/** A delivery that must not be retried (channel gone, payload refused): straight to the dead letters. */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}

export async function processDelivery(
  deps: DeliveryDeps,
  data: DeliveryJobData,
  signal: AbortSignal,
): Promise<DeliveryResult> {
  const { alert, channelId } = data;
  const channel = deps.channels.get(channelId);
  if (channel === undefined) {
    // The channel left the config after the alert was routed to it: nothing to send to.
    deps.logger.warn(
      { channelId, fingerprint: alert.fingerprint },
      'delivery for a channel no longer configured',
    );
    return { status: 'unknown_channel' };
  }
  if (await deps.dedup.wasSent(alert.fingerprint, channelId)) return { status: 'already_sent' };
  try {
    await channel.send(
      { alerts: [alert], totalCount: 1, hideLowStarText: false, messageId: alert.fingerprint },
      signal,
    );
  } catch (error) {
    if (error instanceof DeliveryError && !error.retryable) {
      throw new PermanentDeliveryError(error.message, { cause: error });
    }
    throw error;
  }
  await deps.dedup.recordSent(alert.fingerprint, channelId, deps.clock.now());
  return { status: 'sent' };
}
