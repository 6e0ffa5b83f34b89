/**
 * The SMTP channel: renders a message (see `render/email.ts`) and sends it through the shared
 * pool. `send` resolves once the server accepted the message (its reply to DATA), and fails with
 * a `DeliveryError` that says whether to retry (see `smtpDeliveryError`).
 *
 * Partly accepted sends resolve: when the server takes some recipients and refuses others, the
 * message is delivered to those it took, and throwing would make the retry send it to them again.
 * The refused addresses are logged (addresses only, never the SMTP URL). Submission servers
 * normally accept every recipient and retry deferred ones themselves, so this is rare.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
import { z } from 'zod';
import { deliveryFields } from '../config-kit/channel-fields.ts';
import { boolField, emailField, secretUrlField, uniqueList } from '../config-kit/fields.ts';
import type { Secret } from '../config-kit/secret.ts';
import type { Logger } from '../ops/logger.ts';
import type { Notifier, OutgoingMessage } from './notifier.ts';
import { defineChannel, unpaced } from './plugin.ts';
import { mailFields, renderAlertEmail } from './render/email.ts';
import { type SmtpPool, smtpDeliveryError } from './smtp-pool.ts';

export interface EmailNotifierOptions {
  id: string;
  smtpUrl: Secret;
  /** The channel's `allowInsecure`: without it, plain SMTP off this machine is refused before AUTH. */
  allowInsecure?: boolean;
  from: string;
  to: readonly string[];
  /** Sent as List-Unsubscribe only when the operator runs something that honours it. */
  listUnsubscribe?: string;
  pool: SmtpPool;
  logger?: Logger;
}

/**
 * The List-Unsubscribe URLs: shelfwatch's own one-click link (RFC 8058: exactly one https URL, which
 * takes the POST that `List-Unsubscribe-Post` announces) and the configured `listUnsubscribe` beside
 * it only when that is a mailto:, which RFC 8058 allows. Without a link of our own the configured one
 * is the header, as before (no List-Unsubscribe-Post then: we cannot say it honours one-click).
 */
export function listUnsubscribe(ours: string | undefined, configured: string | undefined): string[] {
  if (ours === undefined) return configured === undefined ? [] : [configured];
  return configured?.startsWith('mailto:') === true ? [ours, configured] : [ours];
}

export function createEmailNotifier(options: EmailNotifierOptions): Notifier {
  const { id, smtpUrl, from, pool, logger } = options;
  const policy = { allowInsecure: options.allowInsecure === true };
  const sendMail = (mail: Parameters<SmtpPool['sendMail']>[1]) => pool.sendMail(smtpUrl, mail, policy);
  const to = [...options.to];
  return {
    id,
    type: 'email',
    async send(message: OutgoingMessage, signal: AbortSignal) {
      const email = renderAlertEmail(message, { from, to, channelId: id });
      let info: Awaited<ReturnType<SmtpPool['sendMail']>>;
      try {
        const unsubscribe = listUnsubscribe(message.links?.unsubscribe, options.listUnsubscribe);
        const fields = mailFields(email, from, to);
        info = await sendMail({
          ...fields,
          // RFC 8058: our https URL takes a POST with exactly this body, without cookies or sign-in.
          ...(message.links === undefined
            ? {}
            : { headers: { ...fields.headers, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }),
          // One header holding every URL (nodemailer writes one header per item of the outer list).
          ...(unsubscribe.length === 0 ? {} : { list: { unsubscribe: [unsubscribe] } }),
          signal,
        });
      } catch (error) {
        throw smtpDeliveryError(id, error);
      }
      if (info.rejected.length > 0) {
        logger?.warn(
          {
            channelId: id,
            messageId: message.messageId,
            rejected: info.rejected,
            accepted: info.accepted.length,
          },
          'email accepted for some recipients only; the refused ones do not get this message',
        );
      }
    },
    // The pool is shared with other channels: its owner closes it (`SmtpPool.closeAll`).
  };
}

export const emailChannel = defineChannel({
  type: 'email',
  schema: z.strictObject({
    ...deliveryFields,
    type: z.literal('email'),
    smtpUrl: secretUrlField(['smtp', 'smtps'], 'smtps://user:password@smtp.example.com:465').meta({
      description:
        'SMTP server with credentials (secret), e.g. ${SMTP_URL}. smtp:// off this machine must upgrade with STARTTLS.',
    }),
    allowInsecure: boolField().prefault(false).meta({
      description:
        'Allow smtp:// off this machine without STARTTLS (the password and mail travel unencrypted).',
    }),
    from: emailField,
    to: uniqueList(emailField, 'address').min(1, 'expected at least one address'),
    listUnsubscribe: z
      .string()
      .trim()
      .regex(/^(https:\/\/|mailto:)\S+$/, 'expected an https:// URL or a mailto: address')
      .optional()
      .meta({
        description:
          "List-Unsubscribe header: an https URL or mailto: address that really removes the recipient (your list manager). With console.publicUrl and console.linkSecret, shelfwatch's own one-click link is the header's https URL and only a mailto: here goes beside it.",
      }),
  }),
  // The SMTP pool paces per server (its own rateLimit); the server queues and retries itself.
  pace: unpaced,
  create: (config, deps) =>
    createEmailNotifier({
      id: config.id,
      smtpUrl: config.smtpUrl,
      allowInsecure: config.allowInsecure,
      from: config.from,
      to: config.to,
      ...(config.listUnsubscribe === undefined ? {} : { listUnsubscribe: config.listUnsubscribe }),
      pool: deps.smtp,
      logger: deps.logger,
    }),
});
