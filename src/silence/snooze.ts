import type { Queue } from 'bullmq';
import { type DeliverQueueData, type DeliveryJobData, deliveryJobId } from '../deliver/enqueue.ts';
import type { Alert } from '../model/alert.ts';
import { conditionKey, SilenceInputError, type SilenceMatchers } from './silence.ts';
import { SILENCE_RETENTION_MS } from './store.ts';

/**
 * The alert a fingerprint names, read from its delivery jobs (kept as long as dedup holds, so any
 * alert someone was sent can still be found). Undefined when no channel had it.
 */
export async function findAlert(
  queue: Queue<DeliverQueueData>,
  channelIds: readonly string[],
  fingerprint: string,
): Promise<Alert | undefined> {
  for (const channelId of channelIds) {
    const job = await queue.getJob(deliveryJobId(fingerprint, channelId));
    const data = job?.data as DeliveryJobData | undefined;
    if (data?.alert?.fingerprint === fingerprint) return data.alert;
  }
  return undefined;
}

/**
 * A snooze is a silence of one firing condition in its current episode: the fire's repeats are
 * kept back, its resolve is not, and the next episode (after it cleared) alerts as usual. With no
 * end given it lasts until the condition resolves, at most the retention.
 */
export function snoozeOf(alert: Alert, nowMs: number, endsAt: number | undefined) {
  const key = conditionKey(alert);
  if (key === null || alert.status !== 'firing') {
    throw new SilenceInputError(
      `alert ${alert.fingerprint} (${alert.kind}) is not a firing condition: only conditions can be snoozed; use "shelfwatch silence add" for events`,
    );
  }
  const matchers: SilenceMatchers = { workspace: alert.workspace, rule: alert.ruleId, condition: key };
  return { matchers, startsAt: nowMs, endsAt: endsAt ?? nowMs + SILENCE_RETENTION_MS };
}
