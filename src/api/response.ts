/**
 * Turning one HTTP response into either a validated value or a typed error. Pure functions of
 * status, headers and body text, so every rule here is decided in one place.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import {
  ApiError,
  type ApiErrorInit,
  ConflictError,
  ForbiddenError,
  formatPath,
  InvalidRequestError,
  NotFoundError,
  RateLimitedError,
  type SchemaIssue,
  SchemaMismatchError,
  TransientError,
  UnauthorizedError,
  ValidationFailedError,
} from './errors.ts';
import { errorBodySchema } from './schemas.ts';
import type { RateLimitInfo } from './types.ts';
import type { BodyValidator } from './validator.ts';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface ResponseContext {
  endpoint: string;
  /** Only used to scrub it out of any text the server sends back. */
  apiKey: string;
  /**
   * The client's clock, for Retry-After dates and reset times. Deliberately not the response's
   * Date header: the engine runs on an injected clock (accelerated against the simulator in the
   * demo), and the waits it computes must be in that clock's time.
   */
  now: () => number;
}

/** Used when a 429 says neither Retry-After nor X-RateLimit-Reset: one minute window. */
const DEFAULT_MINUTE_WAIT_MS = 60_000;
const SNIPPET_CHARS = 200;

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first.trim() === '' ? undefined : first.trim();
}

function headerNumber(headers: IncomingHttpHeaders, name: string): number | undefined {
  const raw = headerValue(headers, name);
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : undefined;
}

export function parseRateLimit(headers: IncomingHttpHeaders): RateLimitInfo {
  const info: RateLimitInfo = {};
  const limit = headerNumber(headers, 'x-ratelimit-limit');
  const remaining = headerNumber(headers, 'x-ratelimit-remaining');
  const reset = headerNumber(headers, 'x-ratelimit-reset');
  const quotaLimit = headerNumber(headers, 'x-quota-limit');
  const quotaRemaining = headerNumber(headers, 'x-quota-remaining');
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (reset !== undefined) info.resetAt = reset * 1000;
  if (quotaLimit !== undefined) info.quotaLimit = quotaLimit;
  if (quotaRemaining !== undefined) info.quotaRemaining = quotaRemaining;
  return info;
}

/** Retry-After as delta-seconds (`120`) or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP-date form starts with a day name; anything else ("-5", "soon") is unreadable,
  // even where Date.parse would guess a meaning.
  if (!/^[A-Za-z]{3}/.test(value)) return undefined;
  const at = Date.parse(value);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function nextUtcMonthStart(nowMs: number): number {
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
}

export function scrub(text: string, secret: string): string {
  return secret === '' ? text : text.split(secret).join('[redacted]');
}

function snippet(text: string, secret: string): string {
  return scrub(text.slice(0, SNIPPET_CHARS), secret);
}

function looksLikeHtml(raw: RawResponse): boolean {
  const type = headerValue(raw.headers, 'content-type') ?? '';
  return type.includes('html') || raw.text.trimStart().startsWith('<');
}

/** Parses a JSON body, or throws a TransientError: an HTML page or broken JSON is a proxy or a hiccup. */
export function parseJsonBody(
  raw: RawResponse,
  ctx: ResponseContext,
  requestId: string | undefined,
): unknown {
  const base = {
    endpoint: ctx.endpoint,
    status: raw.status,
    requestId,
    rateLimit: parseRateLimit(raw.headers),
  };
  if (looksLikeHtml(raw)) {
    throw new TransientError(`${ctx.endpoint} answered ${raw.status} with an HTML page instead of JSON`, {
      ...base,
      code: 'html_body',
      reason: 'html_body',
      bodySnippet: snippet(raw.text, ctx.apiKey),
    });
  }
  try {
    return JSON.parse(raw.text) as unknown;
  } catch (cause) {
    throw new TransientError(`${ctx.endpoint} answered ${raw.status} with a body that is not valid JSON`, {
      ...base,
      code: 'malformed_json',
      reason: 'malformed_json',
      bodySnippet: snippet(raw.text, ctx.apiKey),
      cause,
    });
  }
}

export function schemaIssues(error: z.ZodError): SchemaIssue[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/** Validates a successful body against its schema, or throws a SchemaMismatchError naming the paths. */
export function validateBody<T>(
  schema: BodyValidator<T>,
  body: unknown,
  ctx: ResponseContext,
  init: Omit<ApiErrorInit, 'endpoint' | 'code'>,
): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = schemaIssues(result.error);
  const first = issues[0] ?? { path: '(root)', message: 'invalid' };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new SchemaMismatchError(
    `${ctx.endpoint} answered a body that does not match the assumed contract at ${first.path}: ${first.message}${more}`,
    { ...init, endpoint: ctx.endpoint, code: 'schema_mismatch', issues, cause: result.error },
  );
}

/** The typed error for a non-2xx response. */
export function errorFromStatus(
  raw: RawResponse,
  ctx: ResponseContext,
  headerRequestId: string | undefined,
): ApiError {
  const { status, headers } = raw;
  const rateLimit = parseRateLimit(headers);
  let parsedBody: ReturnType<typeof errorBodySchema.safeParse> | undefined;
  let bodyError: TransientError | undefined;
  try {
    parsedBody = errorBodySchema.safeParse(parseJsonBody(raw, ctx, headerRequestId));
  } catch (error) {
    if (!(error instanceof TransientError)) throw error;
    bodyError = error;
  }
  const body = parsedBody?.success === true ? parsedBody.data.error : undefined;
  // A proxy's HTML page has no contract code: say what arrived rather than invent one.
  const code =
    body?.code ?? (status >= 500 && bodyError !== undefined ? bodyError.code : defaultCode(status));
  const requestId = body?.request_id ?? headerRequestId;
  const serverMessage =
    body !== undefined
      ? `: ${scrub(body.message, ctx.apiKey)}`
      : bodyError?.reason === 'html_body'
        ? ' (an HTML page, not JSON)'
        : '';
  const message = `${ctx.endpoint} answered ${status} ${code}${serverMessage}${requestId === undefined ? '' : ` (request ${requestId})`}`;
  const init: ApiErrorInit = {
    endpoint: ctx.endpoint,
    status,
    code,
    requestId,
    rateLimit,
    bodySnippet: body === undefined && raw.text !== '' ? snippet(raw.text, ctx.apiKey) : undefined,
  };

  if (status >= 500) {
    const retryAfterMs = parseRetryAfterMs(headerValue(headers, 'retry-after'), ctx.now());
    const reason = bodyError?.reason === 'html_body' ? 'html_body' : 'server_error';
    return new TransientError(message, { ...init, reason, retryAfterMs, cause: bodyError });
  }
  switch (status) {
    case 400:
      return new InvalidRequestError(message, init);
    case 401:
      return new UnauthorizedError(message, init);
    case 403:
      return new ForbiddenError(message, init);
    case 404:
      return new NotFoundError(message, init);
    case 409:
      return new ConflictError(message, init);
    case 422: {
      const details = (body?.details ?? []).map((d) => ({
        path: d.path,
        message: scrub(d.message, ctx.apiKey),
      }));
      const where = details[0] === undefined ? '' : ` at ${details[0].path}`;
      return new ValidationFailedError(`${message}${where}`, { ...init, details });
    }
    case 429:
      return rateLimited(message, init, raw, ctx);
    default:
      return new ApiError(message, { ...init, retryable: false });
  }
}

function rateLimited(
  message: string,
  init: ApiErrorInit,
  raw: RawResponse,
  ctx: ResponseContext,
): RateLimitedError {
  const scope = init.code === 'quota_exceeded' ? 'month' : 'minute';
  const now = ctx.now();
  let retryAfterMs = parseRetryAfterMs(headerValue(raw.headers, 'retry-after'), now);
  if (retryAfterMs === undefined) {
    // No Retry-After: fall back to what the contract says the window is, never to "retry now".
    const resetAt = scope === 'month' ? nextUtcMonthStart(now) : init.rateLimit?.resetAt;
    retryAfterMs = resetAt === undefined ? DEFAULT_MINUTE_WAIT_MS : Math.max(0, resetAt - now);
  }
  return new RateLimitedError(`${message}; retry after ${Math.ceil(retryAfterMs / 1000)} s`, {
    ...init,
    scope,
    retryAfterMs,
  });
}

function defaultCode(status: number): string {
  const known: Record<number, string> = {
    400: 'invalid_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    422: 'validation_failed',
    429: 'rate_limited',
  };
  if (status >= 500) return status === 503 ? 'unavailable' : 'internal';
  return known[status] ?? `http_${status}`;
}
