/**
 * Typed errors of the API client. Each class carries the decision a caller has to make: whether
 * to retry (`retryable`), when (`retryAfterMs`), and what to report (`code`, `requestId`). None of
 * them ever holds the API key: server-provided text is scrubbed before it is stored.
 */
import { pathText } from '../util/path-text.ts';
import type { RateLimitInfo } from './types.ts';

export interface ApiErrorInit {
  /** The endpoint template, e.g. `GET /v1/books/{asin}`. */
  endpoint: string;
  /** HTTP status; undefined when no response arrived (network, timeout) or the client refused to send. */
  status?: number | undefined;
  /** The contract's error code (`not_found`, `rate_limited`, ...) or a local one (`timeout`, `schema_mismatch`). */
  code: string;
  retryable?: boolean;
  requestId?: string | undefined;
  /** Rate-limit headers of the failed response, when there was one: a 429 still tells the quota left. */
  rateLimit?: RateLimitInfo | undefined;
  /** The first characters of an unreadable body (HTML page, broken JSON), key scrubbed, for diagnosis. */
  bodySnippet?: string | undefined;
  cause?: unknown;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly endpoint: string;
  readonly status: number | undefined;
  readonly code: string;
  readonly retryable: boolean;
  readonly requestId: string | undefined;
  readonly rateLimit: RateLimitInfo | undefined;
  readonly bodySnippet: string | undefined;

  constructor(message: string, init: ApiErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.endpoint = init.endpoint;
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable ?? false;
    this.requestId = init.requestId;
    this.rateLimit = init.rateLimit;
    this.bodySnippet = init.bodySnippet;
  }

  /** For structured logs: the fields that matter, without the cause chain (log that separately). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this)) {
      if (value !== undefined) out[key] = value;
    }
    return { name: this.name, message: this.message, ...out };
  }
}

/** An answer that retrying cannot change: the request, the key or the account has to change first. */
export class PermanentApiError extends ApiError {
  override name = 'PermanentApiError';
  constructor(message: string, init: ApiErrorInit) {
    super(message, { ...init, retryable: false });
  }
}

/** 400, or a request the client refused to send because the contract says it would be a 400. */
export class InvalidRequestError extends PermanentApiError {
  override name = 'InvalidRequestError';
}

/** 401: missing, unknown or revoked key. Retrying cannot help; a person has to fix the key. */
export class UnauthorizedError extends PermanentApiError {
  override name = 'UnauthorizedError';
}

/** 403: the endpoint is not enabled for this plan or needs beta access. */
export class ForbiddenError extends PermanentApiError {
  override name = 'ForbiddenError';
}

/** 404: unknown ASIN, or an ASIN not in the caller's account. */
export class NotFoundError extends PermanentApiError {
  override name = 'NotFoundError';
}

/** 409: the same Idempotency-Key was used with a different body. */
export class ConflictError extends PermanentApiError {
  override name = 'ConflictError';
}

export interface ValidationDetail {
  path: string;
  message: string;
}

/** 422: the request body failed the server's validation; `details` says where. */
export class ValidationFailedError extends ApiError {
  override name = 'ValidationFailedError';
  readonly details: ValidationDetail[];
  constructor(message: string, init: ApiErrorInit & { details: ValidationDetail[] }) {
    super(message, { ...init, retryable: false });
    this.details = init.details;
  }
}

export type RateLimitScope = 'minute' | 'month';

/**
 * 429. Retryable, but only after `retryAfterMs`: the client never retries it itself, because the
 * wait belongs to the whole workspace (the budget pauses it), not to one request.
 */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  /** `month` when the code is `quota_exceeded`: the wait then runs to the next UTC month. */
  readonly scope: RateLimitScope;
  readonly retryAfterMs: number;
  constructor(message: string, init: ApiErrorInit & { scope: RateLimitScope; retryAfterMs: number }) {
    super(message, { ...init, retryable: true });
    this.scope = init.scope;
    this.retryAfterMs = init.retryAfterMs;
  }
}

export type TransientReason = 'server_error' | 'timeout' | 'network' | 'html_body' | 'malformed_json';

/** A failure that may go away on its own: 5xx, timeouts, broken connections, proxy pages, broken JSON. */
export class TransientError extends ApiError {
  override name = 'TransientError';
  readonly reason: TransientReason;
  /** From a 503's Retry-After, when the server said how long to stay away. */
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    init: ApiErrorInit & { reason: TransientReason; retryAfterMs?: number | undefined },
  ) {
    super(message, { ...init, retryable: true });
    this.reason = init.reason;
    this.retryAfterMs = init.retryAfterMs;
  }
}

export interface SchemaIssue {
  /** Where in the body, e.g. `data[3].rank`; `(root)` for the body itself. */
  path: string;
  message: string;
  /** The logical field of the contract (docs/real-api.md) that broke, e.g. `book.bsrRank`. */
  field?: string;
  /** What was found at `path`, shortly (never a whole object). */
  found?: string;
}

/**
 * A successful response whose body does not match the assumed contract (or breaks the pagination
 * protocol). Not retryable: the same request will give the same body, and reading it anyway could
 * produce false alerts.
 */
export class SchemaMismatchError extends ApiError {
  override name = 'SchemaMismatchError';
  readonly issues: SchemaIssue[];
  constructor(message: string, init: ApiErrorInit & { issues: SchemaIssue[] }) {
    super(message, { ...init, retryable: false });
    this.issues = init.issues;
  }
}

/**
 * What drifted, for a source-health alert: the logical fields that broke, where, and what was found
 * there (`book.bsrRank at result.rank: found "n/a"`); undefined for any other failure.
 */
export function describeDrift(error: unknown, max = 3): string | undefined {
  if (!(error instanceof SchemaMismatchError)) return undefined;
  const fields = error.issues.filter((issue) => issue.field !== undefined);
  if (fields.length === 0) return undefined;
  const shown = fields
    .slice(0, max)
    .map((issue) => `${issue.field} at ${issue.path}: ${issue.message}, found ${issue.found ?? 'nothing'}`);
  const more = fields.length > max ? `; and ${fields.length - max} more` : '';
  return `${error.endpoint}: ${shown.join('; ')}${more}`;
}

/** Formats a zod-style path (`['data', 3, 'rank']`) as `data[3].rank`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return pathText(path, '(root)');
}
