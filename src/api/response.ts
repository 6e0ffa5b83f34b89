/**
 * Turning one HTTP response into either a validated value or a typed error. Pure functions of
 * status, headers and body text, so every rule here is decided in one place.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import { CLIENT_ERROR_CODES } from '../util/contract-codes.ts';
import { parseRetryAfterMs } from '../util/retry-after.ts';
import type { BodyReader, CompiledContract } from './contract/compile.ts';
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
import type { RateLimitInfo } from './types.ts';
import type { BodyValidator } from './validator.ts';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface ResponseContext {
  endpoint: string;
  /**
   * The client's clock, for Retry-After dates and reset times. Deliberately not the response's
   * Date header: the engine runs on an injected clock (accelerated against the simulator in the
   * demo), and the waits it computes must be in that clock's time.
   */
  now: () => number;
  /** Where the error body's fields and the rate-limit headers are, and what each status means. */
  contract: CompiledContract;
}

/** Used when a 429 says neither Retry-After nor X-RateLimit-Reset: one minute window. */
const DEFAULT_MINUTE_WAIT_MS = 60_000;
/** A month's 429 whose Retry-After is shorter than this (and than the reset) is given the reset instead. */
const MONTH_RETRY_AFTER_FLOOR_MS = 60 * 60_000;
const SNIPPET_CHARS = 200;

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first.trim() === '' ? undefined : first.trim();
}

/** The rate-limit signals of a response, read where the contract says they are (headers or body). */
export function parseRateLimit(
  headers: IncomingHttpHeaders,
  ctx: ResponseContext,
  body?: unknown,
): RateLimitInfo {
  return ctx.contract.rateLimit(headers, ctx.now(), body);
}

/**
 * The body as the signals read it, parsed only when the contract puts a signal there (quota or a
 * request id in `meta`); a body that is not JSON has no signals.
 */
export function signalBody(raw: RawResponse, ctx: ResponseContext): unknown {
  if (!ctx.contract.signalsInBody) return undefined;
  try {
    return JSON.parse(raw.text) as unknown;
  } catch {
    return undefined;
  }
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function nextUtcMonthStart(nowMs: number): number {
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
}

/** The start of an unreadable body; the transport took every secret out of the answer already. */
function snippet(text: string): string {
  return text.slice(0, SNIPPET_CHARS);
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
    rateLimit: parseRateLimit(raw.headers, ctx),
  };
  if (looksLikeHtml(raw)) {
    throw new TransientError(`${ctx.endpoint} answered ${raw.status} with an HTML page instead of JSON`, {
      ...base,
      code: 'html_body',
      reason: 'html_body',
      bodySnippet: snippet(raw.text),
    });
  }
  try {
    return JSON.parse(raw.text) as unknown;
  } catch (cause) {
    throw new TransientError(`${ctx.endpoint} answered ${raw.status} with a body that is not valid JSON`, {
      ...base,
      code: 'malformed_json',
      reason: 'malformed_json',
      bodySnippet: snippet(raw.text),
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

/**
 * Reads a successful body through the contract, or throws a SchemaMismatchError naming the logical
 * fields that broke, where, and what was found there.
 */
export function readBody<T>(
  reader: BodyReader<T>,
  body: unknown,
  ctx: ResponseContext,
  init: Omit<ApiErrorInit, 'endpoint' | 'code'>,
): T {
  const result = reader(body);
  if (result.ok) return result.data;
  const issues = result.issues;
  const first = issues[0] ?? { path: '(root)', message: 'invalid' };
  const field = first.field === undefined ? '' : ` (field ${first.field}, found ${first.found ?? 'nothing'})`;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new SchemaMismatchError(
    `${ctx.endpoint} answered a body that does not match the contract at ${first.path}: ${first.message}${field}${more}`,
    { ...init, endpoint: ctx.endpoint, code: 'schema_mismatch', issues },
  );
}

/** The typed error for a non-2xx response. */
export function errorFromStatus(
  raw: RawResponse,
  ctx: ResponseContext,
  headerRequestId: string | undefined,
): ApiError {
  const { status, headers } = raw;
  const rateLimit = parseRateLimit(headers, ctx, signalBody(raw, ctx));
  const { contract } = ctx;
  let body: ReturnType<CompiledContract['errorBody']>;
  let bodyError: TransientError | undefined;
  try {
    body = contract.errorBody(parseJsonBody(raw, ctx, headerRequestId));
  } catch (error) {
    if (!(error instanceof TransientError)) throw error;
    bodyError = error;
  }
  // A 429 the contract tells by a field of its body or a header, whatever its code (`errors.monthWhen`).
  const monthly =
    contract.decision(status) === 'rate_limited' && contract.monthly(headers, jsonOrUndefined(raw.text));
  const decision = monthly ? 'quota_exceeded' : contract.decision(status);
  // A proxy's HTML page has no contract code: say what arrived rather than invent one.
  const code = monthly
    ? 'quota_exceeded'
    : ((body?.code === undefined ? undefined : contract.errorCode(body.code)) ??
      (status >= 500 && bodyError !== undefined ? bodyError.code : defaultCode(status, decision)));
  const requestId = body?.requestId ?? headerRequestId;
  const serverMessage =
    body !== undefined
      ? `: ${body.message ?? ''}`
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
    bodySnippet: body === undefined && raw.text !== '' ? snippet(raw.text) : undefined,
  };

  switch (decision) {
    case 'transient': {
      const retryAfterMs = retryAfter(raw, ctx);
      const reason = bodyError?.reason === 'html_body' ? 'html_body' : 'server_error';
      return new TransientError(message, { ...init, reason, retryAfterMs, cause: bodyError });
    }
    case 'invalid_request':
      return new InvalidRequestError(message, init);
    case 'unauthorized':
      return new UnauthorizedError(message, init);
    case 'forbidden':
      return new ForbiddenError(message, init);
    case 'not_found':
      return new NotFoundError(message, init);
    case 'conflict':
      return new ConflictError(message, init);
    case 'validation_failed': {
      const details = (body?.details ?? []).map((d) => ({
        path: d.path,
        message: d.message,
      }));
      const where = details[0] === undefined ? '' : ` at ${details[0].path}`;
      return new ValidationFailedError(`${message}${where}`, { ...init, details });
    }
    case 'rate_limited':
    case 'quota_exceeded':
      return rateLimited(
        message,
        { ...init, code: decision === 'quota_exceeded' ? 'quota_exceeded' : code },
        raw,
        ctx,
      );
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
  let retryAfterMs = retryAfter(raw, ctx);
  if (scope === 'month') {
    // The month's quota is back when the API says it resets (else the next UTC month). A Retry-After
    // shorter than that and than an hour is the minute's, sent with every 429: believed, it would
    // ask again within the minute and be refused again.
    // A reset not in the future (a stale header, seconds read as milliseconds) is no reset: the next
    // UTC month, never "ask again now", which would be refused again at once, over and over.
    const statedReset = init.rateLimit?.quotaResetAt;
    const resetAt = statedReset !== undefined && statedReset > now ? statedReset : nextUtcMonthStart(now);
    const untilReset = resetAt - now;
    if (retryAfterMs === undefined || retryAfterMs < Math.min(untilReset, MONTH_RETRY_AFTER_FLOOR_MS))
      retryAfterMs = untilReset;
  } else if (retryAfterMs === undefined) {
    // No Retry-After: fall back to what the contract says the window is, never to "retry now".
    const resetAt = init.rateLimit?.resetAt;
    retryAfterMs = resetAt === undefined ? DEFAULT_MINUTE_WAIT_MS : Math.max(0, resetAt - now);
  }
  return new RateLimitedError(`${message}; retry after ${Math.ceil(retryAfterMs / 1000)} s`, {
    ...init,
    scope,
    retryAfterMs,
  });
}

/** The wait the contract's Retry-After header asks for (seconds or an HTTP-date), if it has one. */
function retryAfter(raw: RawResponse, ctx: ResponseContext): number | undefined {
  const name = ctx.contract.retryAfterHeader;
  return name === null ? undefined : parseRetryAfterMs(headerValue(raw.headers, name), ctx.now());
}

function defaultCode(status: number, decision: string): string {
  if (decision !== 'failed' && decision !== 'transient') return decision;
  if (status >= 500) return status === 503 ? 'unavailable' : 'internal';
  return CLIENT_ERROR_CODES[status] ?? `http_${status}`;
}
