/**
 * The sample alert of `shelfwatch test-alert`: sent straight through a channel's notifier, so it
 * proves the channel's own settings (webhook, SMTP) work, without grouping, quiet hours, pacing or
 * the dedup log in the way.
 */

import { createHash } from 'node:crypto';
import type { Notifier, OutgoingMessage } from '../channels/notifier.ts';
import type { Alert } from '../model/alert.ts';
import { SOURCE_KINDS } from '../rules/source-health.ts';

export function sampleAlertTitle(channelId: string): string {
  return `Test alert from shelfwatch — no action needed (channel ${channelId} works)`;
}

/**
 * There is no alert kind for tests, so the sample borrows the source-health family's recovery ("works again"), the
 * one kind whose label cannot be read as bad news. The title and facts say it is a test.
 */
export function sampleAlert(channelId: string, nowMs: number): Alert {
  const observation = `test:${channelId}:${nowMs}`;
  return {
    // Unique per send: a test alert is never deduplicated against an earlier one.
    fingerprint: createHash('sha256').update(observation).digest('hex').slice(0, 32),
    workspace: '*',
    ruleId: 'test-alert',
    kind: SOURCE_KINDS.recovered,
    severity: 'info',
    status: 'resolved',
    subject: { targetId: `channel/${channelId}` },
    title: sampleAlertTitle(channelId),
    facts: { test: true, channel: channelId, sent_at: new Date(nowMs).toISOString() },
    observedAt: nowMs,
  };
}

export function sampleMessage(channelId: string, nowMs: number, timeZone?: string): OutgoingMessage {
  const alert = sampleAlert(channelId, nowMs);
  const zone = timeZone === undefined ? {} : { timeZone };
  return {
    alerts: [alert],
    totalCount: 1,
    hideLowStarText: false,
    messageId: `test-${alert.fingerprint}`,
    ...zone,
  };
}

export type TestAlertResult =
  | { channelId: string; ok: true }
  | { channelId: string; ok: false; reason: string };

/** Sends the sample through one notifier; a failure is a result (with the channel's reason), never a throw. */
export async function sendSampleAlert(
  notifier: Notifier,
  nowMs: number,
  signal: AbortSignal,
  timeZone?: string,
): Promise<TestAlertResult> {
  try {
    await notifier.send(sampleMessage(notifier.id, nowMs, timeZone), signal);
    return { channelId: notifier.id, ok: true };
  } catch (error) {
    if (signal.aborted) return { channelId: notifier.id, ok: false, reason: 'no answer in time' };
    return {
      channelId: notifier.id,
      ok: false,
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}
