import type { Alert } from '../model/alert.ts';
import type { DigestMessage } from './digest-message.ts';

/** One message to send: a group of alerts for one channel (a single alert is a group of one). */
export interface OutgoingMessage {
  /** The alerts to show, in order. May be fewer than `totalCount` when a storm was cut short. */
  alerts: readonly Alert[];
  /** How many alerts the group held; the message says "…and N more" for the rest. */
  totalCount: number;
  /** Leave out the text (title and body) of low-star reviews, showing only the rating. */
  hideLowStarText: boolean;
  /** Stable id of this message (its group and window), for idempotency keys and file names. */
  messageId: string;
  /** IANA zone the message shows times in (the channel's, else the workspaces'); UTC when absent. */
  timeZone?: string;
  /** Locale of the dates shown (a person's, the channel's `locale`); en-GB when absent. */
  locale?: string;
  /** Signed mute and unsubscribe links (`silence/mute-link.ts`); absent without `console.publicUrl`. */
  links?: MessageLinks;
}

/** One alert's mute links: each opens a confirmation page, and only its POST mutes. */
export interface AlertLinks {
  /** Mute this book (on this channel) for a day; absent when the alert names no book. */
  muteBook?: string;
  /** Mute this kind of alert (on this channel). */
  muteKind: string;
  /** Critical alerts cannot be muted from a link: their links open a page that says why. */
  critical: boolean;
}

export interface MessageLinks {
  /** By alert fingerprint. */
  alerts: Readonly<Record<string, AlertLinks>>;
  /** Where silences (and, with people, subscriptions) are managed in the console. */
  manage: string;
  /** RFC 8058 one-click unsubscribe of this channel: the email's List-Unsubscribe URL. */
  unsubscribe: string;
}

/**
 * One delivery channel (Slack webhook, SMTP, outbox folder, log…), built by its plug-in. Channels know nothing of rules
 * or routing; they render (escaping the untrusted text themselves) and say whether the send was
 * confirmed.
 */
export interface Notifier {
  readonly id: string;
  /** The channel's config `type` (its plug-in in channels/registry.ts). */
  readonly type: string;
  /** Resolves once the channel confirmed the message; throws a `DeliveryError` otherwise. */
  send(message: OutgoingMessage, signal: AbortSignal): Promise<void>;
  /** The compact daily digest (chat channels that can show one); same confirmation as `send`. */
  sendDigest?(digest: DigestMessage, signal: AbortSignal): Promise<void>;
  close?(): Promise<void>;
}

/**
 * A failed send that carries the decision: retry later (`retryAfterMs` when the channel said how
 * long, e.g. Slack's 429), or never (`retryable: false`), and whether the channel itself is broken
 * for good (`disableChannel`: Slack 404 channel_not_found, 410 channel_is_archived).
 */
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  readonly channelId: string;
  readonly retryable: boolean;
  readonly disableChannel: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  /**
   * The request went out but no answer came (a timeout after connecting): the channel may have
   * shown the message. The pipeline re-sends such a message once, not on every attempt.
   */
  readonly possiblyDelivered: boolean;

  constructor(
    message: string,
    init: {
      channelId: string;
      retryable: boolean;
      disableChannel?: boolean;
      retryAfterMs?: number;
      status?: number;
      possiblyDelivered?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.channelId = init.channelId;
    this.retryable = init.retryable;
    this.disableChannel = init.disableChannel ?? false;
    this.retryAfterMs = init.retryAfterMs;
    this.status = init.status;
    this.possiblyDelivered = init.possiblyDelivered ?? false;
  }
}
