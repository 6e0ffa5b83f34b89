/** Shapes shared by the client, its errors and its hooks. */

export type HttpMethod = 'GET' | 'POST';

/** What the rate-limit headers of one response said; a header that is absent or unreadable is left out. */
export interface RateLimitInfo {
  /** X-RateLimit-Limit: requests allowed in the current minute window (a per-second rate: 60 times it). */
  limit?: number;
  /** X-RateLimit-Remaining: requests left in the current minute window. */
  remaining?: number;
  /** X-RateLimit-Reset as ms since the epoch (the header is unix seconds). */
  resetAt?: number;
  /** X-Quota-Limit: requests allowed this UTC calendar month. */
  quotaLimit?: number;
  /** X-Quota-Remaining: requests left this month (or the limit minus a stated "used"). */
  quotaRemaining?: number;
  /** When the month's quota starts again, as ms since the epoch, where the API states it. */
  quotaResetAt?: number;
}

/** Handed to `beforeRequest` before every request that is about to go out (each page, each retry). */
export interface OutboundRequest {
  method: HttpMethod;
  /** The endpoint template, e.g. `GET /v1/books/{asin}`: a stable label for metrics and budgets. */
  endpoint: string;
  /** Path and query as sent, without the origin, e.g. `/v1/books/B0CJ4XQ2ZK?marketplace=US`. */
  path: string;
  /** 1 for the first try, 2 for the client's one quick retry. */
  attempt: number;
  /** 0 for a single request or the first page of a list, then 1, 2, ... */
  page: number;
}

/**
 * What `beforeRequest` may hand back: called once the request has ended (answered, failed or timed
 * out), awaited before the call goes on. The budget moves the request's place in its window there.
 */
export type RequestDone = () => Promise<void> | void;

/** `beforeRequest`: awaited before every outbound request; may hand back its `RequestDone`. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook with nothing to hand back returns void.
export type BeforeRequest = (req: OutboundRequest) => Promise<RequestDone | void> | RequestDone | void;

/** Handed to `onResponse` for every HTTP response received, error statuses included. */
export interface ResponseInfo extends OutboundRequest {
  status: number;
  durationMs: number;
  rateLimit: RateLimitInfo;
  requestId?: string;
}

export interface ResponseMeta {
  status: number;
  rateLimit: RateLimitInfo;
  requestId?: string;
  /** Requests this answer took (2 when the quick retry was used); each one counted against the budget. */
  attempts: number;
}

export interface ApiResponse<T> {
  data: T;
  meta: ResponseMeta;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  meta: ResponseMeta & { page: number };
}

export interface CallOptions {
  /** Aborting rejects with the signal's reason (an AbortError by default), never with an ApiError. */
  signal?: AbortSignal;
}
