import { DeliveryError, type MessageLinks, type Notifier } from '../channels/notifier.ts';
import type { AlertOutcomeLog } from '../history/alert-log.ts';
import type { Alert, AlertKind } from '../model/alert.ts';
import { DeferredError } from '../model/deferred.ts';
import type { Logger } from '../ops/logger.ts';
import type { SilenceGate } from '../silence/gate.ts';
import type { Clock } from '../util/clock.ts';
import type { DedupLog } from './dedup.ts';
import type { DeliveryJobData, FlushJobData } from './enqueue.ts';
import { type GroupBuffer, groupHash } from './groups.ts';
import type { ChannelPacer } from './pacing.ts';
import { type QuietHours, quietHoursEnd } from './quiet-hours.ts';

/** How one channel batches, paces and keeps quiet; read from its config once. */
export interface ChannelSettings {
  groupWaitMs: number;
  groupIntervalMs: number;
  /** Per alert kind, windows other than the channel's (`groupWindows` in the config). */
  groupWindows?: Partial<Record<AlertKind, { groupWaitMs?: number; groupIntervalMs?: number }>>;
  quietHours?: QuietHours;
  /** Least time between two messages; channels sharing an endpoint share `paceKey`. */
  minIntervalMs: number;
  paceKey: string;
  /** Zone of the times in this channel's messages (UTC when absent). */
  timeZone?: string;
  /** Locale of the dates in this channel's messages (en-GB when absent). */
  locale?: string;
}

export interface DeliveryDeps {
  channels: ReadonlyMap<string, Notifier>;
  settings: ReadonlyMap<string, ChannelSettings>;
  groups: GroupBuffer;
  pacer: ChannelPacer;
  dedup: DedupLog;
  clock: Clock;
  logger: Logger;
  /** Adds the flush job of a group (a no-op when that job id exists already). */
  scheduleFlush(jobId: string, data: FlushJobData, runAtMs: number): Promise<void>;
  /** Marks a channel broken for good and tells people through the other channels. */
  disableChannel(channelId: string, error: DeliveryError): Promise<void>;
  isDisabled(channelId: string): Promise<string | null>;
  /** Silences and mute windows, checked at each flush (absent: nothing is silenced). */
  silences?: SilenceGate;
  /** The console's alert log, told each channel's outcome (absent: nothing is logged). */
  alertLog?: AlertOutcomeLog;
  /** Signed mute links for a message (absent without `console.publicUrl` and `linkSecret`). */
  links?: (alerts: readonly Alert[], channelId: string, messageId: string, nowMs: number) => MessageLinks;
}

export type AdmitResult =
  | { status: 'buffered'; flushAt: number }
  | { status: 'already_sent' | 'unknown_channel' };
export type FlushResult = { status: 'sent'; alerts: number } | { status: 'empty' };

/**
 * Sends of one message that timed out after the request went out (possibly shown) before it is
 * kept as a dead letter rather than sent again: the first send and one re-send. Re-sending on
 * every attempt put one message five times into a Slack channel slower than the timeout.
 */
export const MAX_UNCONFIRMED_SENDS = 2;

/** A flush that must not be retried (channel gone, payload refused): straight to the dead letters. */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}

/** Alerts of one workspace and kind travel together; critical ones never wait behind quiet hours. */
export function groupKeyOf(alert: Alert, hideLowStarText: boolean): string {
  const critical = alert.severity === 'critical' ? 'critical' : 'normal';
  return `${alert.workspace}|${alert.kind}|${critical}|${hideLowStarText ? 'hide' : 'show'}`;
}

export function flushJobId(hash: string, dueAt: number): string {
  return `flush.${hash}.${dueAt}`;
}

/** The due time a flush job id was made from (`flushJobId`); NaN for another id. */
export function flushDueAt(jobId: string): number {
  return Number(jobId.slice(jobId.lastIndexOf('.') + 1) || Number.NaN);
}

/**
 * A flush job is about to fail for good (a permanent refusal, its last attempt, too many
 * deferrals): its alerts stay with it as its dead letter, for `dlq list`, `retry` and `purge`,
 * also when it failed before taking its group's buffer (see `GroupBuffer.keepForDeadLetter`).
 */
export async function keepForDeadLetter(
  deps: Pick<DeliveryDeps, 'groups' | 'alertLog'>,
  data: FlushJobData,
  jobId: string,
): Promise<number> {
  const kept = await deps.groups.keepForDeadLetter(data.groupHash, jobId, flushDueAt(jobId));
  if (deps.alertLog !== undefined) {
    const alerts = await deps.groups.inflight(data.groupHash, jobId);
    await deps.alertLog.outcome(
      alerts.map((a) => a.fingerprint),
      data.channelId,
      'dead-lettered',
    );
  }
  return kept;
}

/**
 * Admission of one alert to one channel: skip it if the dedup log says it was sent, else put it in
 * its group's buffer and make sure the group's flush job exists.
 */
export async function processAdmit(deps: DeliveryDeps, data: DeliveryJobData): Promise<AdmitResult> {
  const { alert, channelId } = data;
  const settings = deps.settings.get(channelId);
  if (settings === undefined || !deps.channels.has(channelId)) {
    deps.logger.warn(
      { channelId, fingerprint: alert.fingerprint },
      'alert for a channel no longer configured',
    );
    return { status: 'unknown_channel' };
  }
  if (await deps.dedup.wasSent(alert.fingerprint, channelId)) return { status: 'already_sent' };
  const hide = data.hideLowStarText ?? false;
  const groupKey = groupKeyOf(alert, hide);
  const hash = groupHash(channelId, groupKey);
  const now = deps.clock.now();
  const critical = alert.severity === 'critical';
  const quietEnd = critical ? null : quietHoursEnd(now, settings.quietHours);
  const flush: FlushJobData = { channelId, groupHash: hash, groupKey, hideLowStarText: hide, critical };
  // The group key holds the kind, so every alert of a group gets the same window.
  const window = settings.groupWindows?.[alert.kind];
  const timing = {
    nowMs: now,
    groupWaitMs: window?.groupWaitMs ?? settings.groupWaitMs,
    groupIntervalMs: window?.groupIntervalMs ?? settings.groupIntervalMs,
    notBeforeMs: quietEnd ?? 0,
  };
  const flushAt = await deps.groups.admit(hash, alert, timing, flush);
  await deps.scheduleFlush(flushJobId(hash, flushAt), flush, flushAt);
  return { status: 'buffered', flushAt };
}

/**
 * Sends one group as one message. Order: quiet hours, pacing, take the buffer (it stays in flight
 * until confirmed, so a crash or a failed send loses nothing), send, then the dedup log.
 */
export async function processFlush(
  deps: DeliveryDeps,
  data: FlushJobData,
  signal: AbortSignal,
  jobId: string,
): Promise<FlushResult> {
  const channel = deps.channels.get(data.channelId);
  const settings = deps.settings.get(data.channelId);
  if (channel === undefined || settings === undefined) {
    throw new PermanentDeliveryError(`channel "${data.channelId}" is no longer configured`);
  }
  const disabled = await deps.isDisabled(data.channelId);
  if (disabled !== null)
    throw new PermanentDeliveryError(`channel "${data.channelId}" is disabled: ${disabled}`);
  const now = deps.clock.now();
  const quietEnd = data.critical ? null : quietHoursEnd(now, settings.quietHours);
  if (quietEnd !== null) throw new DeferredError('flush', quietEnd, 'quiet hours');
  const slot = await deps.pacer.acquire(settings.paceKey, now, settings.minIntervalMs);
  if (typeof slot === 'number') throw new DeferredError('flush', slot, 'channel pacing', { counted: false });
  // The slot stays booked until this send ends, whatever happens in between (see ChannelPacer).
  // Never fails the job: a delivered message must not turn into a resend, and a send's own error
  // must reach the caller; a lost release only leaves the channel paused until the booking expires.
  let released = false;
  let sending = false;
  const release = async () => {
    if (released) return;
    released = true;
    await deps.pacer
      .release(slot, deps.clock.now(), sending)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, channel: data.channelId }, 'could not release the pacing slot'),
      );
  };
  const flush = {
    data,
    jobId,
    now,
    signal,
    channel,
    paceKey: settings.paceKey,
    timeZone: settings.timeZone,
    locale: settings.locale,
  };
  try {
    return await takeAndSend(deps, flush, {
      release,
      sending: () => {
        sending = true;
      },
    });
  } finally {
    // Nothing sent (an empty group, a failure before the send): the slot is free again at once.
    await release();
  }
}

/** The part of a flush that runs while the channel's pacing slot is booked. */
async function takeAndSend(
  deps: DeliveryDeps,
  flush: {
    data: FlushJobData;
    jobId: string;
    now: number;
    signal: AbortSignal;
    channel: Notifier;
    paceKey: string;
    timeZone: string | undefined;
    locale: string | undefined;
  },
  pacing: { release: () => Promise<void>; sending: () => void },
): Promise<FlushResult> {
  const { data, jobId, now, signal, channel } = flush;
  const taken = await deps.groups.take(data.groupHash, jobId, now);
  // A re-run of this job after a crash between the dedup write and the confirm must not resend.
  const alreadySent = await deps.dedup.sentAmong(
    taken.map((a) => a.fingerprint),
    data.channelId,
  );
  const unsent = taken.filter((a) => !alreadySent.has(a.fingerprint));
  // Checked here, not at admission: a silence set while alerts wait (group wait, quiet hours) holds.
  const alerts =
    deps.silences === undefined ? unsent : await deps.silences.partition(unsent, data.channelId, now);
  if (deps.alertLog !== undefined && alerts.length < unsent.length) {
    const kept = new Set(alerts.map((a) => a.fingerprint));
    const silenced = unsent.filter((a) => !kept.has(a.fingerprint)).map((a) => a.fingerprint);
    await deps.alertLog.outcome(silenced, data.channelId, 'silenced');
  }
  if (alerts.length === 0) {
    await deps.groups.confirm(data.groupHash, jobId);
    return { status: 'empty' };
  }
  pacing.sending();
  const messageId = `${data.groupHash}-${alerts[0]?.fingerprint ?? ''}`;
  // Links expire from the group's window (`now`), so a retried send carries the same ones.
  const links = deps.links?.(alerts, data.channelId, messageId, now);
  try {
    await channel.send(
      {
        alerts,
        totalCount: alerts.length,
        hideLowStarText: data.hideLowStarText,
        messageId,
        ...(flush.timeZone === undefined ? {} : { timeZone: flush.timeZone }),
        ...(flush.locale === undefined ? {} : { locale: flush.locale }),
        ...(links === undefined ? {} : { links }),
      },
      signal,
    );
  } catch (error) {
    // Released before a Retry-After hold, which must win over the end-of-send slot.
    await pacing.release();
    if (!(error instanceof DeliveryError)) throw error;
    if (error.retryAfterMs !== undefined) {
      const until = deps.clock.now() + error.retryAfterMs;
      await deps.pacer.holdUntil(flush.paceKey, until, deps.clock.now());
      throw new DeferredError('flush', until, `${data.channelId} answered ${error.status ?? 'busy'}`);
    }
    if (error.possiblyDelivered) await countUnconfirmedSend(deps, data.channelId, alerts, messageId, error);
    if (error.disableChannel) await deps.disableChannel(data.channelId, error);
    if (!error.retryable) throw new PermanentDeliveryError(error.message, { cause: error });
    throw error;
  }
  await deps.dedup.recordSentMany(
    alerts.map((a) => a.fingerprint),
    data.channelId,
    deps.clock.now(),
  );
  await deps.alertLog?.outcome(
    alerts.map((a) => a.fingerprint),
    data.channelId,
    'delivered',
  );
  await deps.groups.confirm(data.groupHash, jobId);
  return { status: 'sent', alerts: alerts.length };
}

/**
 * At-least-once with a dedup log written on confirmation: a send without an answer is sent again,
 * but only up to `MAX_UNCONFIRMED_SENDS` times; then the message waits in the dead letters, where an
 * operator who finds it missing can `dlq retry` it.
 */
async function countUnconfirmedSend(
  deps: DeliveryDeps,
  channelId: string,
  alerts: readonly Alert[],
  messageId: string,
  error: DeliveryError,
): Promise<void> {
  const fingerprints = alerts.map((a) => a.fingerprint);
  const sends = await deps.dedup.recordUnconfirmed(fingerprints, channelId);
  deps.logger.warn(
    { channel: channelId, messageId, alerts: alerts.length, unconfirmedSends: sends },
    'send got no answer after the request went out: possibly delivered',
  );
  if (sends < MAX_UNCONFIRMED_SENDS) return;
  throw new PermanentDeliveryError(
    `${error.message}; sent ${sends} times without an answer, not sent again (dlq retry sends it once more)`,
    { cause: error },
  );
}

/**
 * The janitor: schedules a flush for every group that holds alerts with no flush due (left behind
 * by a process that died between buffering and scheduling). Safe to run from every process.
 */
export async function flushOrphanedGroups(deps: DeliveryDeps, orphans: readonly string[]): Promise<number> {
  let scheduled = 0;
  for (const hash of orphans) {
    const claim = await deps.groups.claimOrphan(hash, deps.clock.now());
    if (claim === null) continue;
    await deps.scheduleFlush(flushJobId(hash, claim.dueAt), claim.meta as FlushJobData, claim.dueAt);
    scheduled += 1;
  }
  if (scheduled > 0) deps.logger.warn({ scheduled }, 'scheduled flushes for groups left without one');
  return scheduled;
}
