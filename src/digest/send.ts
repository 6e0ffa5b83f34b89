/**
 * Sends a built digest to one recipient's channel — email through the shared SMTP pool, or an
 * outbox folder (`.eml` and `.html`, each written whole or not at all) — and, only after the
 * channel confirmed, records it as the last digest (and its local date as sent).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { DeliveryError } from '../channels/notifier.ts';
import { smtpDeliveryError } from '../channels/smtp-pool.ts';
import type { ChannelConfig, ShelfwatchConfig } from '../config/schema.ts';
import {
  type BuiltDigest,
  buildDigest,
  type DigestAttachment,
  type DigestDeps,
  type DigestRecipient,
} from './build.ts';
import { type ChatSendResult, sendChatDigest } from './send-chat.ts';

export type DigestSendResult =
  | { kind: 'email'; channel: string; messageId: string; accepted: string[] }
  | { kind: 'outbox'; channel: string; files: string[] }
  /** The compact digest, through a chat channel's notifier (Slack, Discord, Teams). */
  | ChatSendResult;

const OUTBOX_FROM = 'shelfwatch digest <digest@localhost>';
/** File-system refusals that retrying cannot fix. */
const BROKEN = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST']);

function channelOf(config: ShelfwatchConfig, id: string): ChannelConfig {
  const channel = config.channels.find((c) => c.id === id);
  if (channel === undefined)
    throw new DeliveryError(`digest: no channel "${id}" in the config`, { channelId: id, retryable: false });
  return channel;
}

/** The HTML with every `cid:` image replaced by a data: URI: for files opened in a browser. */
export function inlineImagesAsDataUris(html: string, attachments: readonly DigestAttachment[]): string {
  let out = html;
  for (const a of attachments) {
    out = out
      .split(`src="cid:${a.cid}"`)
      .join(`src="data:${a.contentType};base64,${a.content.toString('base64')}"`);
  }
  return out;
}

export async function writeAtomically(dir: string, name: string, data: string | Buffer): Promise<string> {
  const target = join(dir, name);
  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, data, { flag: 'wx' });
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  return target;
}

function mailOf(built: BuiltDigest, from: string, to: readonly string[]) {
  return {
    from,
    to: [...to],
    subject: built.subject,
    text: built.text,
    html: built.html,
    attachments: built.attachments.map((a) => ({ ...a })),
  };
}

async function toOutbox(dir: string, channel: string, built: BuiltDigest): Promise<DigestSendResult> {
  const stem = `digest-${built.figures.workspace}-${built.figures.day}-${channel}`;
  try {
    await mkdir(dir, { recursive: true });
    const eml = await new MailComposer(mailOf(built, OUTBOX_FROM, [`${channel}@localhost`]))
      .compile()
      .build();
    // The same digest day overwrites its own files; the .eml comes last, so its presence means "complete".
    const html = await writeAtomically(
      dir,
      `${stem}.html`,
      inlineImagesAsDataUris(built.html, built.attachments),
    );
    const message = await writeAtomically(dir, `${stem}.eml`, eml);
    return { kind: 'outbox', channel, files: [message, html] };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DeliveryError(`digest outbox "${channel}": ${(error as Error).message}`, {
      channelId: channel,
      retryable: code === undefined || !BROKEN.has(code),
      cause: error,
    });
  }
}

/** Sends to the recipient's channel; throws a `DeliveryError` that says whether a retry can help. */
export async function sendDigest(
  deps: Pick<DigestDeps, 'config' | 'smtp' | 'notifierFor'>,
  built: BuiltDigest,
  recipient: Pick<DigestRecipient, 'channel' | 'workspace'>,
  signal: AbortSignal = new AbortController().signal,
): Promise<DigestSendResult> {
  const channel = channelOf(deps.config, recipient.channel);
  switch (channel.type) {
    case 'email': {
      try {
        const info = await deps.smtp.sendMail(channel.smtpUrl, mailOf(built, channel.from, channel.to), {
          allowInsecure: channel.allowInsecure,
        });
        const accepted = info.accepted.map(String);
        return { kind: 'email', channel: channel.id, messageId: info.messageId, accepted };
      } catch (error) {
        throw smtpDeliveryError(channel.id, error);
      }
    }
    case 'outbox':
      return toOutbox(channel.dir, channel.id, built);
    default:
      return sendChatDigest(deps, built, { channel, workspace: recipient.workspace }, signal);
  }
}

export interface DeliveredDigest {
  built: BuiltDigest;
  result: DigestSendResult;
}

/**
 * Build, send, then record. `scheduledDate` is the local date a scheduled digest stands for (it
 * is marked as sent); on-demand digests pass null and leave the schedule alone.
 */
export async function deliverDigest(
  deps: DigestDeps,
  request: {
    recipient: DigestRecipient;
    nowMs: number;
    day?: string;
    scheduledDate: string | null;
    signal?: AbortSignal;
  },
): Promise<DeliveredDigest> {
  const { recipient } = request;
  const built = await buildDigest(deps, {
    workspace: recipient.workspace,
    recipient,
    nowMs: request.nowMs,
    ...(request.day === undefined ? {} : { day: request.day }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  });
  const result = await sendDigest(deps, built, recipient, request.signal);
  await deps.state.recordSent(recipient.workspace, recipient.channel, {
    last: built.last,
    atMs: deps.clock.now(),
    localDate: request.scheduledDate,
  });
  deps.logger.info(
    { workspace: recipient.workspace, channel: recipient.channel, day: built.figures.day, kind: result.kind },
    'digest sent',
  );
  return { built, result };
}
