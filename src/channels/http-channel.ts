/**
 * The part every HTTP channel shares: post with a deadline over undici's pool, map network
 * failures, and turn the channel's verdict on the answer into a `DeliveryError` that carries the
 * decision. A channel supplies only `render` (the request), `classify` (what its answer means) and,
 * for Slack, `post` (through @slack/webhook).
 *
 * Channels only report. Pacing and pausing after a 429 are the delivery pipeline's job, which sees
 * every send to an endpoint. Secrets (webhook URLs, tokens) are revealed only to build the request
 * and are scrubbed from any text we did not write (a response body, a network error).
 */
import { Agent, type Dispatcher, fetch as undiciFetch } from 'undici';
import type { Secret } from '../config-kit/secret.ts';
import { redact } from '../util/redact.ts';
import { parseRetryAfterMs } from '../util/retry-after.ts';
import type { DigestMessage } from './digest-message.ts';
import { type Fail, networkError, shortText } from './http-errors.ts';
import { DeliveryError, type Notifier, type OutgoingMessage } from './notifier.ts';

/**
 * Services answer a webhook in well under a second; 10 s leaves a slow network or proxy plenty of
 * room while every send still ends well inside its pacing booking (`SEND_HOLD_MS`, 30 s), which
 * must outlast any send or the next message could start while this one may still land. A send
 * that times out after connecting may have been shown: see `possiblyDelivered`.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_BODY_CHARS = 4_096;

/** What the channel's answer means. */
export type Verdict =
  | { outcome: 'ok' }
  /** Try again, after `retryAfterMs` when the channel said how long (its own signal). */
  | { outcome: 'retry'; retryAfterMs?: number; note?: string }
  /** The endpoint is gone or forbidden for good: the channel is disabled and the others told. */
  | { outcome: 'refused'; note?: string }
  /** Our payload was refused: retrying fails the same way, but the channel is fine. */
  | { outcome: 'ours'; note?: string };

export interface HttpAnswer {
  status: number;
  headers: { get(name: string): string | null };
  /** The body's start (errors are short; a proxy's page is not worth more). */
  text: string;
}

export interface HttpPost {
  url: string;
  headers?: Record<string, string>;
  json: unknown;
}

/** The fetch the channels use (and inject into @slack/webhook): undici's, over our pool. */
export type ChannelFetch = (
  url: string | URL,
  init?: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | FormData;
    redirect?: 'error' | 'follow' | 'manual';
    signal?: AbortSignal;
  },
) => Promise<Response>;

export interface HttpChannelSpec {
  id: string;
  type: string;
  /** Every secret in the URL or headers: scrubbed from error text. */
  secrets: readonly Secret[];
  render(message: OutgoingMessage): HttpPost;
  /** The compact digest's request, for channels that show one (the notifier's `sendDigest`). */
  renderDigest?(digest: DigestMessage): HttpPost;
  classify(answer: HttpAnswer): Verdict;
  /** Headers computed over the exact body (a signature). */
  sign?(body: string, message: OutgoingMessage): Record<string, string>;
  /** Sends the request; default: a JSON POST with `fetch`. */
  post?(request: HttpPost, fetch: ChannelFetch): Promise<HttpAnswer>;
  dispatcher?: Dispatcher | undefined;
  timeoutMs?: number | undefined;
}

/** A channel whose one secret is its webhook URL (Discord, Slack, Teams). */
export interface WebhookNotifierOptions {
  id: string;
  webhookUrl: Secret;
  dispatcher?: Dispatcher | undefined;
  timeoutMs?: number;
}

/** `createHttpNotifier` for a webhook-URL channel: the URL is the secret to scrub. */
export function createWebhookNotifier(
  type: string,
  options: WebhookNotifierOptions,
  spec: Pick<HttpChannelSpec, 'render' | 'renderDigest' | 'classify' | 'post'>,
): Notifier {
  return createHttpNotifier({
    id: options.id,
    type,
    secrets: [options.webhookUrl],
    dispatcher: options.dispatcher,
    timeoutMs: options.timeoutMs,
    ...spec,
  });
}

export function createHttpNotifier(spec: HttpChannelSpec): Notifier {
  const { id, type } = spec;
  const timeoutMs = spec.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ownsDispatcher = spec.dispatcher === undefined;
  const dispatcher =
    spec.dispatcher ??
    new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const fail: Fail = (message, init) =>
    new DeliveryError(`${type} channel "${id}": ${message}`, { channelId: id, ...init });
  const secretValues = spec.secrets.map((secret) => secret.reveal());
  const scrub = (text: string) => redact(text, secretValues);

  /** Posts one request and turns the answer into ok or a `DeliveryError` (alerts and digests alike). */
  async function deliver(
    request: HttpPost,
    sign: ((body: string) => Record<string, string>) | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    if (signal.aborted) throw fail('send aborted', { retryable: true, cause: signal.reason });
    const deadline = AbortSignal.timeout(timeoutMs);
    const fetch = fetchOver(dispatcher, AbortSignal.any([signal, deadline]));
    let answer: HttpAnswer;
    try {
      answer = spec.post ? await spec.post(request, fetch) : await postJson(request, fetch, sign);
    } catch (error) {
      throw networkError(error, { signal, deadline, timeoutMs, scrub, fail });
    }
    const verdict = spec.classify(answer);
    if (verdict.outcome === 'ok') return;
    throw verdictError(verdict, answer.status, scrub(shortText(answer.text)), fail);
  }

  const { renderDigest } = spec;
  return {
    id,
    type,
    async send(message: OutgoingMessage, signal: AbortSignal): Promise<void> {
      if (signal.aborted) throw fail('send aborted', { retryable: true, cause: signal.reason });
      const sign = spec.sign && ((body: string) => spec.sign?.(body, message) ?? {});
      await deliver(spec.render(message), sign, signal);
    },
    // A signing channel (webhook) signs over a message id: it offers no digest until it signs one.
    ...(renderDigest === undefined || spec.sign !== undefined
      ? {}
      : {
          sendDigest: (digest: DigestMessage, signal: AbortSignal) =>
            deliver(renderDigest(digest), undefined, signal),
        }),
    async close(): Promise<void> {
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}

/** undici's fetch over `dispatcher`, aborted by `signal` as well as by the caller's own. */
export function fetchOver(dispatcher: Dispatcher, signal: AbortSignal): ChannelFetch {
  return (url, init) =>
    undiciFetch(url, {
      ...init,
      // FormData: the global and undici's are the same class at run time (Node's fetch is undici).
      body: init?.body as string | undefined,
      dispatcher,
      signal: init?.signal === undefined ? signal : AbortSignal.any([signal, init.signal]),
    }) as unknown as Promise<Response>;
}

async function postJson(
  request: HttpPost,
  fetch: ChannelFetch,
  sign: ((body: string) => Record<string, string>) | undefined,
): Promise<HttpAnswer> {
  const body = JSON.stringify(request.json);
  const res = await fetch(request.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'shelfwatch',
      ...request.headers,
      ...sign?.(body),
    },
    body,
    // A webhook that redirects is misconfigured; following it could post the message elsewhere.
    redirect: 'error',
  });
  return { status: res.status, headers: res.headers, text: (await res.text()).slice(0, MAX_BODY_CHARS) };
}

/**
 * The usual meaning of HTTP statuses for a webhook: 429 and 5xx wait (with Retry-After when
 * given), `refusing` statuses say the endpoint itself is gone, 400/413/422 say our payload was
 * wrong, other 4xx fail this message only.
 */
export function classifyStatus(answer: HttpAnswer, service: string, refusing: ReadonlySet<number>): Verdict {
  const { status } = answer;
  if (status >= 200 && status <= 299) return { outcome: 'ok' };
  const retryAfterMs = parseRetryAfterMs(answer.headers.get('retry-after') ?? undefined);
  const after = retryAfterMs === undefined ? {} : { retryAfterMs };
  if (status === 429) return { outcome: 'retry', ...after, note: 'rate limited' };
  if (status >= 500 || status === 408) return { outcome: 'retry', ...after };
  if (refusing.has(status)) {
    return {
      outcome: 'refused',
      note: 'the endpoint no longer accepts messages; fix or remove this channel',
    };
  }
  if (status === 400 || status === 413 || status === 422) {
    return { outcome: 'ours', note: `${service} refused this message's payload; the channel itself is fine` };
  }
  // Other 4xx and unexpected 1xx/3xx: the same request will not succeed.
  return { outcome: 'ours' };
}

function verdictError(
  verdict: Exclude<Verdict, { outcome: 'ok' }>,
  status: number,
  text: string,
  fail: Fail,
) {
  const said = text === '' ? '' : ` ${text}`;
  const note = verdict.note === undefined ? '' : ` (${verdict.note})`;
  const what = `HTTP ${status}${said}${note}`;
  switch (verdict.outcome) {
    case 'retry':
      return fail(what, {
        retryable: true,
        status,
        ...(verdict.retryAfterMs === undefined ? {} : { retryAfterMs: verdict.retryAfterMs }),
      });
    case 'refused':
      return fail(what, { retryable: false, disableChannel: true, status });
    case 'ours':
      return fail(what, { retryable: false, status });
  }
}

/** A JSON body's field, or undefined when the body is not JSON (a proxy's page). */
export function jsonField(text: string, ...path: string[]): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
