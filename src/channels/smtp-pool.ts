/**
 * One pooled nodemailer transport per SMTP URL, shared by every channel (and the digest) that
 * sends through the same server, so they share its connections and its rate limit. The URL is a
 * `Secret`: it is revealed here only, to build the transport, and errors leave this module with
 * the URL, user name and password scrubbed out of their text.
 */
import { createHash } from 'node:crypto';
import nodemailer, {
  type SendMailOptions,
  type SMTPPoolOptions,
  type SMTPPoolSentMessageInfo,
  type Transporter,
} from 'nodemailer';
import type { Secret } from '../config-kit/secret.ts';
import { isLoopbackHost } from '../config-kit/transport-security.ts';
import { redact } from '../util/redact.ts';
import { DeliveryError } from './notifier.ts';

export type PooledTransport = Transporter<SMTPPoolSentMessageInfo, SMTPPoolOptions>;
export type SmtpSentInfo = SMTPPoolSentMessageInfo;

type Tunable =
  | 'maxConnections'
  | 'maxMessages'
  | 'rateLimit'
  | 'rateDelta'
  | 'connectionTimeout'
  | 'greetingTimeout'
  | 'socketTimeout'
  | 'dnsTimeout';

/**
 * Defaults for every transport of the pool. Parameters in the URL (`?maxConnections=5&rateLimit=10`)
 * take precedence. nodemailer's own timeouts (2 min to connect, 10 min of socket silence) would
 * hold a delivery job far past its lock; these fail a dead server fast so the job can retry.
 */
export const SMTP_DEFAULTS: Readonly<Pick<SMTPPoolOptions, Tunable>> = {
  maxConnections: 2,
  maxMessages: 100,
  rateLimit: 5,
  rateDelta: 1_000,
  connectionTimeout: 15_000,
  greetingTimeout: 15_000,
  socketTimeout: 60_000,
  dnsTimeout: 15_000,
};

/**
 * URL parameters the pool ignores: nodemailer's debug logs print SMTP commands (AUTH included),
 * and the access flags keep message content from reading local files or fetching URLs.
 */
const IGNORED_PARAMS = ['logger', 'debug', 'transactionLog', 'disableFileAccess', 'disableUrlAccess'];
/**
 * URL parameters that could switch a required STARTTLS off again: nodemailer lets the URL's
 * parameters override the options, so only the channel's `allowInsecure` may opt out.
 */
const TLS_OPT_OUT_PARAMS = ['requireTLS', 'ignoreTLS', 'opportunisticTLS'];

/** How a channel may talk to its server. */
export interface SmtpTransportPolicy {
  /** The email channel's `allowInsecure`: plain SMTP (and AUTH) off this machine is tolerated. */
  allowInsecure?: boolean;
}

/**
 * Off this machine the connection must be encrypted before AUTH: `smtps://`, or STARTTLS, which
 * nodemailer's `requireTLS` makes mandatory (a server that offers none is refused after EHLO,
 * before the password is sent). Unparseable URLs count as off this machine.
 */
function mustEncrypt(raw: string, policy: SmtpTransportPolicy): boolean {
  if (policy.allowInsecure === true) return false;
  try {
    return !isLoopbackHost(new URL(raw).hostname);
  } catch {
    return true;
  }
}

/** A failed send, with nodemailer's details kept and every trace of the credentials removed. */
export class SmtpSendError extends Error {
  override readonly name = 'SmtpSendError';
  /** nodemailer's error code: EENVELOPE, EMESSAGE, EAUTH, ECONNECTION, ESOCKET, ETIMEDOUT, EABORT… */
  readonly code: string | undefined;
  /** The code beneath nodemailer's own: ECONNREFUSED under ESOCKET, EFILEACCESS under ESTREAM… */
  readonly originalCode: string | undefined;
  readonly responseCode: number | undefined;
  /** The SMTP command the server refused: `MAIL FROM`, `RCPT TO`, `DATA`, `AUTH PLAIN`… */
  readonly command: string | undefined;
  /** Set with `responseCode`: true when the server refused for good (5xx except 503). */
  readonly permanent: boolean | undefined;
  /** Recipients the server refused. */
  readonly rejected: readonly string[];

  constructor(
    message: string,
    init: {
      code?: string;
      originalCode?: string;
      responseCode?: number;
      command?: string;
      permanent?: boolean;
      rejected?: string[];
    } = {},
  ) {
    super(message);
    this.code = init.code;
    this.originalCode = init.originalCode;
    this.responseCode = init.responseCode;
    this.command = init.command;
    this.permanent = init.permanent;
    this.rejected = init.rejected ?? [];
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

function toSendError(error: unknown, secrets: readonly string[]): SmtpSendError {
  if (!(error instanceof Error))
    return new SmtpSendError(redact(`SMTP send failed: ${String(error)}`, secrets));
  const e = error as Error & Record<string, unknown>;
  const rejected = Array.isArray(e.rejected)
    ? e.rejected.filter((r): r is string => typeof r === 'string')
    : [];
  const permanent = typeof e.permanent === 'boolean' ? e.permanent : undefined;
  return new SmtpSendError(redact(error.message, secrets), {
    code: str(e.code),
    originalCode: str(e.originalCode),
    responseCode: num(e.responseCode),
    command: str(e.command),
    permanent,
    rejected,
  });
}

function transportUrl(raw: string, ignored: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  // Rewrite only when needed: re-serialising could change how the credentials are encoded.
  if (!ignored.some((p) => url.searchParams.has(p))) return raw;
  for (const p of ignored) url.searchParams.delete(p);
  return url.toString();
}

export interface SmtpPool {
  /**
   * Sends any nodemailer message (the digest's HTML with CID images included) through the
   * transport of `url`. Resolves once the server accepted it for at least one recipient
   * (`info.rejected` lists the others); rejects with a `SmtpSendError`. File paths and URLs as
   * content are refused: pass attachments as `content` buffers. Off this machine the send is
   * refused before AUTH unless the connection is encrypted or `policy.allowInsecure` is set.
   */
  sendMail(url: Secret, mail: SendMailOptions, policy?: SmtpTransportPolicy): Promise<SmtpSentInfo>;
  /** The shared transport of this URL (and policy), created on first use. */
  transportFor(url: Secret, policy?: SmtpTransportPolicy): PooledTransport;
  /** How many transports are open (one per distinct URL). */
  readonly size: number;
  /** Closes every transport (messages being transmitted finish first); later sends are refused. */
  closeAll(): Promise<void>;
}

export function createSmtpPool(defaults: Partial<Pick<SMTPPoolOptions, Tunable>> = {}): SmtpPool {
  const transports = new Map<string, PooledTransport>();
  let closed = false;

  function transportFor(url: Secret, policy: SmtpTransportPolicy = {}): PooledTransport {
    const raw = url.reveal();
    const requireTLS = mustEncrypt(raw, policy);
    // Keyed by a hash: the map holds no readable copy of the URL.
    const key = createHash('sha256')
      .update(`${requireTLS ? 'tls' : 'any'} ${raw}`)
      .digest('hex');
    const existing = transports.get(key);
    if (existing !== undefined) return existing;
    const transport = nodemailer.createTransport({
      ...SMTP_DEFAULTS,
      ...defaults,
      url: transportUrl(raw, requireTLS ? [...IGNORED_PARAMS, ...TLS_OPT_OUT_PARAMS] : IGNORED_PARAMS),
      pool: true,
      logger: false,
      disableFileAccess: true,
      disableUrlAccess: true,
      ...(requireTLS ? { requireTLS: true } : {}),
    });
    // Every failure reaches its caller through sendMail's rejection; an unheard 'error' event
    // would crash the process instead.
    transport.on('error', () => {});
    transports.set(key, transport);
    return transport;
  }

  return {
    transportFor,
    get size() {
      return transports.size;
    },
    async sendMail(url, mail, policy) {
      const secrets = [url.reveal()];
      if (closed) throw new SmtpSendError('SMTP pool is closed (shutting down)', { code: 'EPOOLCLOSED' });
      try {
        return await transportFor(url, policy).sendMail(mail);
      } catch (error) {
        throw toSendError(error, secrets);
      }
    },
    async closeAll() {
      closed = true;
      for (const transport of transports.values()) transport.close();
      transports.clear();
    },
  };
}

/**
 * Codes without an SMTP reply that say retrying the same message cannot help. ESTREAM is the
 * message's own content failing to build (a refused file path, say), not the network.
 */
const FINAL_WITHOUT_REPLY = new Set([
  'EMESSAGE',
  'EMAXRECIPIENTS',
  'ESTREAM',
  'EFILEACCESS',
  'EURLACCESS',
  'EOTP',
]);
/** …and those that say the channel's own settings are wrong (credentials, addresses, options). */
const BROKEN_WITHOUT_REPLY = new Set(['EAUTH', 'ENOAUTH', 'ECONFIG', 'EENVELOPE']);

/**
 * The delivery decision for a failed SMTP send:
 * - a permanent reply (5xx but 503) is final (`retryable: false`); it also disables the channel when
 *   the refusal is about the channel rather than the message: the configured sender (`MAIL FROM`),
 *   every configured recipient (`RCPT TO`: nodemailer fails the envelope only when none was accepted,
 *   and reports a temporary refusal if any recipient got one), or the credentials (`EAUTH`, 535).
 *   A 5xx to `DATA` (content refused, message too big) is final for this message only;
 * - a temporary reply (4xx, 503), a refused or dropped connection, a timeout, an abort: retryable;
 * - errors raised before talking to the server: final, and disabling when they are about settings.
 * Anything unrecognised is retried: the queue's attempt limit bounds it.
 */
export function smtpDeliveryError(channelId: string, error: unknown): DeliveryError {
  const e = error instanceof SmtpSendError ? error : toSendError(error, []);
  const message = `email channel "${channelId}": ${e.message}`;
  const base = { channelId, cause: e, ...(e.responseCode === undefined ? {} : { status: e.responseCode }) };
  if (e.responseCode !== undefined) {
    const permanent =
      e.permanent ?? (e.responseCode >= 500 && e.responseCode < 600 && e.responseCode !== 503);
    if (!permanent) return new DeliveryError(message, { ...base, retryable: true });
    const aboutChannel = e.command === 'MAIL FROM' || e.command === 'RCPT TO' || e.code === 'EAUTH';
    return new DeliveryError(message, { ...base, retryable: false, disableChannel: aboutChannel });
  }
  if (e.code !== undefined && BROKEN_WITHOUT_REPLY.has(e.code)) {
    return new DeliveryError(message, { ...base, retryable: false, disableChannel: true });
  }
  if (e.code !== undefined && FINAL_WITHOUT_REPLY.has(e.code)) {
    return new DeliveryError(message, { ...base, retryable: false });
  }
  return new DeliveryError(message, { ...base, retryable: true });
}
