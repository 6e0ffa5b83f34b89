/**
 * What HTTP channels make of text they did not write: network failures (a timeout, a refused
 * connection, a redirect) become `DeliveryError`s that carry the decision, and secrets are scrubbed
 * from an answer's body and from undici's error messages before they reach an error or a log.
 */
import type { DeliveryError } from './notifier.ts';

const MAX_ERROR_TEXT = 100;

export type Fail = (
  message: string,
  init: Omit<ConstructorParameters<typeof DeliveryError>[1], 'channelId'>,
) => DeliveryError;

export function networkError(
  error: unknown,
  ctx: {
    signal: AbortSignal;
    deadline: AbortSignal;
    timeoutMs: number;
    scrub: (text: string) => string;
    fail: Fail;
  },
): DeliveryError {
  const { fail, timeoutMs } = ctx;
  if (ctx.signal.aborted) {
    // Shutdown or a cancelled job: not the channel's fault. The service may have the message already.
    return fail('send aborted', { retryable: true, cause: ctx.signal.reason });
  }
  const code = errorCode(error);
  const timedOut = ctx.deadline.aborted || (code !== undefined && TIMEOUT_CODES.has(code));
  // The cause is rebuilt from scrubbed text: undici's own error could name the URL.
  const cause = safeCause(error, ctx.scrub);
  const inner = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  if (!timedOut && inner !== undefined && /redirect/i.test(inner.message)) {
    return fail('the endpoint answered with a redirect (check the URL)', { retryable: false, cause });
  }
  if (!timedOut && (code === 'UND_ERR_INVALID_ARG' || (error instanceof TypeError && inner === undefined))) {
    return fail(`the request could not be built (${cause.message})`, { retryable: false, cause });
  }
  if (!timedOut) return fail(`connection failed (${cause.message})`, { retryable: true, cause });
  // Past the connect, the request may have reached the service, which may post it however late it answers.
  const possiblyDelivered = code !== 'UND_ERR_CONNECT_TIMEOUT';
  const what = possiblyDelivered ? ', possibly delivered' : ' before connecting';
  return fail(`timed out after ${timeoutMs} ms${what} (${cause.message})`, {
    retryable: true,
    possiblyDelivered,
    cause,
  });
}

/** The answer as one short printable line; an HTML error page (a proxy's) becomes a hint. */
export function shortText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('<')) return '(html error page)';
  const line = (trimmed.split('\n')[0] ?? '').replace(/[^\x20-\x7e]/g, '?');
  return line.length > MAX_ERROR_TEXT ? `${line.slice(0, MAX_ERROR_TEXT)}…` : line;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** The error's code, or its cause's (fetch wraps network errors in a TypeError "fetch failed"). */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if ('code' in error && typeof error.code === 'string') return error.code;
  return 'cause' in error && error.cause !== error ? errorCode(error.cause) : undefined;
}

/** A stand-in for a network error: same name and code, scrubbed message, no reference to the original. */
function safeCause(error: unknown, scrub: (text: string) => string): Error & { code?: string } {
  const inner = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const text = error instanceof Error ? error.message + inner : String(error);
  const cause: Error & { code?: string } = new Error(scrub(text) || 'unknown error');
  if (error instanceof Error) cause.name = error.name;
  const code = errorCode(error);
  if (code !== undefined) cause.code = code;
  return cause;
}
