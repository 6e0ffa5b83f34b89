/**
 * The compact digest through a chat channel (Slack, Discord, Teams): built from the same figures
 * as the email, sent by the process's own notifier of that channel (its HTTP pool, its error
 * classification). The footer says where the full report is: a person who also gets the digest
 * by email is told so; a team channel is told the command that writes it.
 */
import { DeliveryError } from '../channels/notifier.ts';
import type { ChannelConfig } from '../config/schema.ts';
import type { BuiltDigest, DigestDeps } from './build.ts';
import { compactDigest } from './compact.ts';

function fullReportOf(config: DigestDeps['config'], channelId: string, workspace: string): string {
  const person = config.people.accounts.find((p) => p.channelId === channelId);
  const mailed =
    person?.mailChannelId !== undefined &&
    config.digest.recipients.some((r) => r.channel === person.mailChannelId && r.workspace === workspace);
  return mailed
    ? 'The full report, with charts and every title, comes by email.'
    : `The full report: shelfwatch digest --now --workspace ${workspace} --out digest.html`;
}

/** What a chat channel's digest send reports (one of `sendDigest`'s results). */
export interface ChatSendResult {
  kind: 'chat';
  channel: string;
  type: string;
}

export async function sendChatDigest(
  deps: Pick<DigestDeps, 'config' | 'notifierFor'>,
  built: BuiltDigest,
  target: { channel: ChannelConfig; workspace: string },
  signal: AbortSignal,
): Promise<ChatSendResult> {
  const { channel } = target;
  const notifier = deps.notifierFor?.(channel.id);
  if (notifier?.sendDigest === undefined)
    throw new DeliveryError(
      `digest: channel "${channel.id}" is of type ${channel.type}; digests go to email, outbox, slack, discord or teams channels`,
      { channelId: channel.id, retryable: false },
    );
  const message = compactDigest(built.figures, built.subject, {
    messageId: `digest-${built.figures.workspace}-${built.figures.day}-${channel.id}`,
    fullReport: fullReportOf(deps.config, channel.id, target.workspace),
  });
  await notifier.sendDigest(message, signal);
  return { kind: 'chat', channel: channel.id, type: channel.type };
}
