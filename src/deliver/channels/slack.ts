/**
 * Slack incoming-webhook channel. Posts with undici directly, not @slack/webhook: that package's
 * errors do not expose response headers, so a 429's Retry-After would be lost, and the pipeline
 * needs it to pause this webhook.
 *
 * This notifier only reports. Pacing (about 1 message a second per webhook) and pausing after a
 * 429 are the delivery pipeline's job, which sees every send to a webhook; sending on through
 * 429s can get the Slack app disabled.
 *
 * The webhook URL is a secret (its path is the credential): it is revealed only to build the
 * request and never reaches an error message, a cause or a log line.
 */
import { createHash } from 'node:crypto';
import { Agent, type Dispatcher } from 'undici';
import type { Secret } from '../../config/secret.ts';
import { DeliveryError, type Notifier, type OutgoingMessage } from '../notifier.ts';
import { renderSlackMessage } from '../render/slack-blocks.ts';

export interface SlackNotifierOptions {
  id: string;
  webhookUrl: Secret;
  /** Tests and shared pools pass one; otherwise a private Agent is created (and closed by `close`). */
  dispatcher?: Dispatcher;
  /** Deadline for connect, headers and body, each; and for the whole request. Default 10 s. */
  timeoutMs?: number;
}

/**
 * Slack answers a webhook in well under a second; 10 s leaves a slow network or proxy plenty of
 * room while every send still ends well inside its pacing booking (`SEND_HOLD_MS`, 30 s), which
 * must outlast any send or the next message could start while this one may still land. A send
 * that times out after connecting may have been shown: see `possiblyDelivered`.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Slack answers with a short word (`channel_not_found`); anything longer is not Slack's. */
const MAX_ERROR_TEXT = 100;
const MAX_BODY_BYTES = 4_096;

/**
 * What Slack's webhook statuses mean for us. 400 (invalid_payload, invalid_blocks, no_text…) says
 * OUR payload is wrong: retrying it fails the same way, but the channel is fine for other messages,
 * so it is not disabled. 403/404/410 say the webhook itself is gone or forbidden (action_prohibited,
 * channel_not_found or a revoked webhook, channel_is_archived): nothing will get through until
 * someone fixes the config.
 */
const DISABLING = new Set([403, 404, 410]);

/** A short hash of the webhook URL: enough to tell two webhooks apart in logs, useless to post with. */
export function webhookHash(webhookUrl: Secret): string {
  return createHash('sha256').update(webhookUrl.reveal()).digest('hex').slice(0, 8);
}

export function createSlackNotifier(options: SlackNotifierOptions): Notifier {
  const { id, webhookUrl } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const fail: Fail = (message, init) =>
    new DeliveryError(`slack channel "${id}": ${message}`, { channelId: id, ...init });

  return {
    id,
    type: 'slack',
    async send(message: OutgoingMessage, signal: AbortSignal): Promise<void> {
      if (signal.aborted) throw fail('send aborted', { retryable: true, cause: signal.reason });
      const payload = JSON.stringify({
        ...renderSlackMessage(message),
        // Review links come from the public: no previews of pages we did not choose.
        unfurl_links: false,
        unfurl_media: false,
      });
      const scrub = scrubber(webhookUrl);
      const deadline = AbortSignal.timeout(timeoutMs);
      let status: number;
      let headers: Record<string, string | string[] | undefined>;
      let text: string;
      try {
        const url = new URL(webhookUrl.reveal());
        const res = await dispatcher.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'shelfwatch' },
          body: payload,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.any([signal, deadline]),
        });
        status = res.statusCode;
        headers = res.headers;
        text = await readSome(res.body);
      } catch (error) {
        if (signal.aborted) {
          // Shutdown or a cancelled job: not the channel's fault. Slack may have the message already.
          throw fail('send aborted', { retryable: true, cause: signal.reason });
        }
        const code = errorCode(error);
        const timedOut = deadline.aborted || (code !== undefined && TIMEOUT_CODES.has(code));
        // The cause is rebuilt from scrubbed text: undici's own error could name the URL.
        const cause = safeCause(error, scrub);
        if (code === 'UND_ERR_INVALID_ARG' || error instanceof TypeError) {
          throw fail(`the request could not be built (${cause.message})`, { retryable: false, cause });
        }
        if (!timedOut) throw fail(`connection failed (${cause.message})`, { retryable: true, cause });
        // Past the connect, the request may have reached Slack, which may post it however late it answers.
        const possiblyDelivered = code !== 'UND_ERR_CONNECT_TIMEOUT';
        const what = possiblyDelivered ? ', possibly delivered' : ' before connecting';
        throw fail(`timed out after ${timeoutMs} ms${what} (${cause.message})`, {
          retryable: true,
          possiblyDelivered,
          cause,
        });
      }
      if (status >= 200 && status <= 299) return;
      throw classify(status, headers, scrub(shortText(text)), fail);
    },
    async close(): Promise<void> {
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}

type Fail = (
  message: string,
  init: Omit<ConstructorParameters<typeof DeliveryError>[1], 'channelId'>,
) => DeliveryError;

function classify(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  fail: Fail,
): DeliveryError {
  const said = text === '' ? '' : ` ${text}`;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    return fail(`HTTP 429${said} (rate limited)`, {
      retryable: true,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status >= 500 || status === 408) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    return fail(`HTTP ${status}${said}`, {
      retryable: true,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (DISABLING.has(status)) {
    return fail(
      `HTTP ${status}${said} (the webhook no longer accepts messages; fix or remove this channel)`,
      {
        retryable: false,
        disableChannel: true,
        status,
      },
    );
  }
  if (status === 400) {
    return fail(`HTTP 400${said} (Slack refused this message's payload; the channel itself is fine)`, {
      retryable: false,
      status,
    });
  }
  // Other 4xx and unexpected 1xx/3xx (webhooks do not redirect): the same request will not succeed.
  return fail(`HTTP ${status}${said}`, { retryable: false, status });
}

/** Retry-After in seconds (what Slack sends) or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Reads the body to its end (a half-read body holds the connection) but keeps only its start. */
async function readSome(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (kept < MAX_BODY_BYTES) {
      chunks.push(buf.subarray(0, MAX_BODY_BYTES - kept));
      kept += Math.min(buf.length, MAX_BODY_BYTES - kept);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Slack's answer as one short printable line; an HTML error page (a proxy's) becomes a hint. */
function shortText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('<')) return '(html error page)';
  const line = (trimmed.split('\n')[0] ?? '').replace(/[^\x20-\x7e]/g, '?');
  return line.length > MAX_ERROR_TEXT ? `${line.slice(0, MAX_ERROR_TEXT)}…` : line;
}

/**
 * Removes the webhook URL and its credential path from text we did not write (a response body, a
 * network error). Slack never echoes it, but a proxy or a future error message might.
 */
function scrubber(webhookUrl: Secret): (text: string) => string {
  return (text) => {
    let url: URL;
    try {
      url = new URL(webhookUrl.reveal());
    } catch {
      return text.split(webhookUrl.reveal()).join('[webhook]');
    }
    const secrets = [
      webhookUrl.reveal(),
      url.href,
      url.pathname,
      ...url.pathname.split('/').filter((s) => s.length >= 8),
    ];
    let out = text;
    for (const secret of secrets) if (secret.length > 1) out = out.split(secret).join('[webhook]');
    return out;
  };
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** A stand-in for a network error: same name and code, scrubbed message, no reference to the original. */
function safeCause(error: unknown, scrub: (text: string) => string): Error & { code?: string } {
  const message = scrub(error instanceof Error ? error.message : String(error)) || 'unknown error';
  const cause: Error & { code?: string } = new Error(message);
  if (error instanceof Error) cause.name = error.name;
  const code = errorCode(error);
  if (code !== undefined) cause.code = code;
  return cause;
}
