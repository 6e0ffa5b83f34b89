/**
 * The digest job: one recipient, one local day. Its identity is (workspace, channel, digest day),
 * derived from the scheduled fire time, so a retry or a re-run after a crash finds the day already
 * sent and sends nothing. The record is written after the channel confirmed (at-least-once).
 */
import { DeferredError } from '../model/deferred.ts';
import type { DigestDeps, DigestRecipient } from './build.ts';
import { digestDay } from './dates.ts';
import type { DigestJobData } from './schedule.ts';
import { deliverDigest } from './send.ts';

export type DigestJobResult =
  | { status: 'sent'; day: string; subject: string; kind: 'email' | 'outbox' | 'chat' }
  /** The recipient left the config, or the digest was turned off, after the job was queued. */
  | { status: 'stale' }
  /** This day's digest was already sent to this recipient. */
  | { status: 'duplicate'; day: string };

export interface DigestContext {
  signal: AbortSignal;
  /** When the job was due (clock time): fixes the digest day across retries and delays. */
  fireTimeMs: number;
}

/**
 * The recipient's lock lives this long unless its holder renews it (every third of it): a sender
 * killed mid-send loses it within this, so the retry of its job sends the digest.
 */
export const DIGEST_LOCK_TTL_MS = 15_000;
/** When another process holds the lock, look again this long after it would expire. */
const LOCKED_RETRY_MARGIN_MS = 1_000;

export function recipientOf(
  deps: Pick<DigestDeps, 'config'>,
  data: DigestJobData,
): DigestRecipient | undefined {
  const { digest } = deps.config;
  if (!digest.enabled) return undefined;
  return digest.recipients.find((r) => r.workspace === data.workspace && r.channel === data.channel);
}

export async function processDigest(
  deps: DigestDeps,
  data: DigestJobData,
  ctx: DigestContext,
): Promise<DigestJobResult> {
  const recipient = recipientOf(deps, data);
  // removeJobScheduler leaves a job that is already waiting: it must not send for a removed recipient.
  if (recipient === undefined) return { status: 'stale' };
  const day = digestDay(ctx.fireTimeMs, recipient.timeZone);
  if (await deps.state.wasSent(data.workspace, data.channel, day)) return { status: 'duplicate', day };
  const lock = await deps.state.lock(data.workspace, data.channel, DIGEST_LOCK_TTL_MS);
  if (!('held' in lock)) {
    throw new DeferredError(
      'digest',
      deps.clock.now() + lock.heldForMs + LOCKED_RETRY_MARGIN_MS,
      'another process is sending this digest',
    );
  }
  try {
    // Checked again under the lock: the holder before us may just have sent it.
    if (await deps.state.wasSent(data.workspace, data.channel, day)) return { status: 'duplicate', day };
    const { built, result } = await deliverDigest(deps, {
      recipient,
      nowMs: deps.clock.now(),
      day,
      scheduledDate: day,
      signal: ctx.signal,
    });
    return { status: 'sent', day, subject: built.subject, kind: result.kind };
  } finally {
    await lock.held.release();
  }
}
