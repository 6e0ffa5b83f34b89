import type { Queue } from 'bullmq';
import type { AlertLog } from '../history/alert-log.ts';
import type { Alert, AlertSink } from '../model/alert.ts';
import { DAY_MS } from '../util/time-units.ts';

/** Job data of an admission: the alert (no secrets in it) and the channel's id — never its URL. */
export interface DeliveryJobData {
  alert: Alert;
  channelId: string;
  hideLowStarText?: boolean;
}

/** Job data of a flush: one channel's group, sent as one message (deliver/processor.ts). */
export interface FlushJobData {
  channelId: string;
  groupHash: string;
  /** The group's description, for `dlq list`. */
  groupKey: string;
  hideLowStarText: boolean;
  critical: boolean;
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
  keepMs: 30 * DAY_MS,
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
    /** The console's alert log: each alert once, with the channels it was routed to. */
    private readonly log?: AlertLog,
  ) {}

  async enqueue(alerts: readonly Alert[]): Promise<void> {
    const routed = alerts.map((alert) => ({ alert, targets: this.route(alert) }));
    const jobs = routed.flatMap(({ alert, targets }) =>
      targets.map(({ channelId, hideLowStarText }) => ({
        name: 'admit',
        data: { alert, channelId, hideLowStarText },
        opts: { jobId: deliveryJobId(alert.fingerprint, channelId), ...jobRetention(this.settings) },
      })),
    );
    // Logged before the jobs exist, so a delivery outcome never arrives for an entry not yet written.
    await this.log?.record(
      routed.map(({ alert, targets }) => ({ alert, channels: targets.map((t) => t.channelId) })),
    );
    if (jobs.length > 0) await this.queue.addBulk(jobs);
  }
}
