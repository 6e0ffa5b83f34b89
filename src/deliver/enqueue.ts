import type { Queue } from 'bullmq';
import type { Alert } from '../model/alert.ts';
import type { AlertSink } from '../poll/processor.ts';

/** Job data of a delivery: the alert (no secrets in it) and the channel's id — never its URL. */
export interface DeliveryJobData {
  alert: Alert;
  channelId: string;
}

/** Deterministic, so a re-run of the same poll adds nothing (BullMQ ignores a known job id). */
export function deliveryJobId(fingerprint: string, channelId: string): string {
  return `dlv.${fingerprint}.${channelId}`;
}

export interface DeliveryJobSettings {
  attempts: number;
  backoffMs: number;
  /**
   * How long completed delivery jobs are kept: a repeated job id is only ignored while the first
   * job still exists, so this is the window in which a re-run poll cannot deliver twice.
   */
  keepCompletedMs: number;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliveryJobSettings = {
  attempts: 8,
  backoffMs: 5_000,
  keepCompletedMs: 30 * 86_400_000,
};

/** Enqueues one delivery job per alert and channel the router picks. */
export class QueueAlertSink implements AlertSink {
  constructor(
    private readonly queue: Queue<DeliveryJobData>,
    private readonly route: (alert: Alert) => readonly string[],
    private readonly settings: DeliveryJobSettings = DEFAULT_DELIVERY_SETTINGS,
  ) {}

  async enqueue(alerts: readonly Alert[]): Promise<void> {
    const jobs = alerts.flatMap((alert) =>
      this.route(alert).map((channelId) => ({
        name: alert.kind,
        data: { alert, channelId },
        opts: {
          jobId: deliveryJobId(alert.fingerprint, channelId),
          attempts: this.settings.attempts,
          backoff: { type: 'exponential', delay: this.settings.backoffMs, jitter: 0.5 },
          removeOnComplete: { age: Math.ceil(this.settings.keepCompletedMs / 1_000) },
          removeOnFail: { age: Math.ceil(this.settings.keepCompletedMs / 1_000) },
        },
      })),
    );
    if (jobs.length > 0) await this.queue.addBulk(jobs);
  }
}
