import type { Queue } from 'bullmq';
import type { Alert } from '../model/alert.ts';
import type { AlertSink } from '../poll/processor.ts';
import type { FlushJobData } from './processor.ts';

/** Job data of an admission: the alert (no secrets in it) and the channel's id — never its URL. */
export interface DeliveryJobData {
  alert: Alert;
  channelId: string;
  hideLowStarText?: boolean;
}

export type DeliverQueueData = DeliveryJobData | FlushJobData;

/** Where one alert goes: a channel, and how the route asked it to be shown there. */
export interface RouteTarget {
  channelId: string;
  hideLowStarText: boolean;
}

/** Deterministic, so a re-run of the same poll adds nothing (BullMQ ignores a known job id). */
export function deliveryJobId(fingerprint: string, channelId: string): string {
  return `dlv.${fingerprint}.${channelId}`;
}

export interface DeliveryJobSettings {
  attempts: number;
  backoffMs: number;
  /**
   * How long finished jobs are kept: a repeated job id is only ignored while the first job still
   * exists, so this is the window in which a re-run poll cannot deliver twice. Failed flush jobs
   * are the dead-letter queue and are kept as long.
   */
  keepMs: number;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliveryJobSettings = {
  attempts: 8,
  backoffMs: 5_000,
  keepMs: 30 * 86_400_000,
};

export function jobRetention(settings: DeliveryJobSettings) {
  const age = Math.ceil(settings.keepMs / 1_000);
  return {
    attempts: settings.attempts,
    backoff: { type: 'exponential', delay: settings.backoffMs, jitter: 0.5 },
    removeOnComplete: { age },
    removeOnFail: { age },
  };
}

/** Enqueues one admission job per alert and channel the router picks. */
export class QueueAlertSink implements AlertSink {
  constructor(
    private readonly queue: Queue<DeliverQueueData>,
    private readonly route: (alert: Alert) => readonly RouteTarget[],
    private readonly settings: DeliveryJobSettings = DEFAULT_DELIVERY_SETTINGS,
  ) {}

  async enqueue(alerts: readonly Alert[]): Promise<void> {
    const jobs = alerts.flatMap((alert) =>
      this.route(alert).map(({ channelId, hideLowStarText }) => ({
        name: 'admit',
        data: { alert, channelId, hideLowStarText },
        opts: { jobId: deliveryJobId(alert.fingerprint, channelId), ...jobRetention(this.settings) },
      })),
    );
    if (jobs.length > 0) await this.queue.addBulk(jobs);
  }
}
