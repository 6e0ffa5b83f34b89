/**
 * Sends one logical request: budget hook, HTTP via undici, classification, and at most one quick
 * retry of a transient GET. Knows nothing about individual endpoints.
 */

import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { redact, redactDeep } from '../util/redact.ts';
import type { CompiledContract, ReadResult } from './contract/compile.ts';
import { ApiError, TransientError } from './errors.ts';
import {
  errorFromStatus,
  parseJsonBody,
  parseRateLimit,
  type RawResponse,
  type ResponseContext,
  readBody,
  signalBody,
} from './response.ts';
import type { ApiResponse, BeforeRequest, HttpMethod, OutboundRequest, ResponseInfo } from './types.ts';

export interface TransportConfig {
  origin: string;
  /** Path prefix of the base URL without a trailing slash ('' for none). */
  basePath: string;
  apiKey: string;
  userAgent: string;
  dispatcher: Dispatcher;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Largest answer read; the contract's biggest (1,000 keywords, 100 items a page) is far below. */
  maxBodyBytes: number;
  retryDelayMs: number;
  now: () => number;
  /** The API's contract, compiled: where everything is in an answer. */
  contract: CompiledContract;
  beforeRequest: BeforeRequest | undefined;
  onResponse: ((res: ResponseInfo) => void) | undefined;
}

export interface RequestSpec<T> {
  method: HttpMethod;
  endpoint: string;
  /** Path below the base URL, starting with `/v1/`, query included. */
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** Reads the answer through the contract (a list page also needs the headers: Link). */
  read: (body: unknown, headers: IncomingHttpHeaders) => ReadResult<T>;
  /** Only idempotent GETs: a POST is never repeated behind the caller's back. */
  retryTransient: boolean;
  page: number;
  signal: AbortSignal | undefined;
}

/**
 * A 503 asking for a longer pause than this is not retried inside the client: the caller's
 * scheduler is the right place to wait that long, and waiting here would hold a worker.
 */
const MAX_QUICK_RETRY_WAIT_MS = 2_000;

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const CLOSED_CODES = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);

export async function send<T>(config: TransportConfig, spec: RequestSpec<T>): Promise<ApiResponse<T>> {
  const maxAttempts = spec.retryTransient ? 2 : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendOnce(config, spec, attempt);
    } catch (error) {
      if (!(error instanceof TransientError) || attempt >= maxAttempts) throw error;
      const asked = error.retryAfterMs ?? 0;
      if (asked > MAX_QUICK_RETRY_WAIT_MS) throw error;
      await pause(Math.max(asked, quickRetryDelay(config.retryDelayMs)), spec.signal);
    }
  }
}

function quickRetryDelay(baseMs: number): number {
  // Jitter keeps many workers that failed together from retrying in lockstep.
  return baseMs <= 0 ? 0 : baseMs + Math.floor(Math.random() * baseMs);
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return;
  try {
    await sleep(ms, undefined, signal === undefined ? undefined : { signal });
  } catch (error) {
    throw signal?.aborted === true ? signal.reason : error;
  }
}

async function sendOnce<T>(
  config: TransportConfig,
  spec: RequestSpec<T>,
  attempt: number,
): Promise<ApiResponse<T>> {
  const outbound: OutboundRequest = {
    method: spec.method,
    endpoint: spec.endpoint,
    path: spec.path,
    attempt,
    page: spec.page,
  };
  // Checked before the budget hook, so an aborted call never spends a request.
  spec.signal?.throwIfAborted();
  const done = config.beforeRequest === undefined ? undefined : await config.beforeRequest(outbound);
  try {
    spec.signal?.throwIfAborted();
    return await exchange(config, spec, outbound, attempt);
  } finally {
    // Once the answer is in (or the request failed): the budget stamps it as counted by then.
    await done?.();
  }
}

/** The request on the wire and its answer, classified. */
async function exchange<T>(
  config: TransportConfig,
  spec: RequestSpec<T>,
  outbound: OutboundRequest,
  attempt: number,
): Promise<ApiResponse<T>> {
  const ctx: ResponseContext = {
    endpoint: spec.endpoint,
    now: config.now,
    contract: config.contract,
  };
  const started = performance.now();
  // undici's timeouts are between chunks: a body that drips a byte at a time never trips them. One
  // deadline for the whole answer does.
  const deadline = AbortSignal.timeout(config.headersTimeoutMs + config.bodyTimeoutMs);
  const signal = spec.signal === undefined ? deadline : AbortSignal.any([spec.signal, deadline]);
  let raw: RawResponse;
  try {
    const res = await config.dispatcher.request({
      origin: config.origin,
      path: config.basePath + spec.path,
      method: spec.method,
      headers: {
        authorization: `Bearer ${config.apiKey}`,
        accept: 'application/json',
        'user-agent': config.userAgent,
        ...spec.headers,
      },
      body: spec.body ?? null,
      headersTimeout: config.headersTimeoutMs,
      bodyTimeout: config.bodyTimeoutMs,
      signal,
    });
    // The key is taken out of the whole answer at the door, headers and body alike: every error
    // field (code, request id, details, a snippet) and every header read later comes from here.
    raw = redactDeep(
      {
        status: res.statusCode,
        headers: { ...res.headers },
        text: await readCapped(res.body, config.maxBodyBytes, spec),
      },
      [config.apiKey],
      { shapes: false },
    );
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (deadline.aborted && spec.signal?.aborted !== true) {
      throw new TransientError(
        `${spec.endpoint}: no complete answer within ${config.headersTimeoutMs + config.bodyTimeoutMs} ms`,
        {
          endpoint: spec.endpoint,
          code: 'timeout',
          reason: 'timeout',
          cause: error,
        },
      );
    }
    throw fromNetworkError(error, spec, config.apiKey);
  }

  const signals = signalBody(raw, ctx);
  const rateLimit = parseRateLimit(raw.headers, ctx, signals);
  const headerRequestId = config.contract.requestId(raw.headers, signals);
  config.onResponse?.({
    ...outbound,
    status: raw.status,
    durationMs: performance.now() - started,
    rateLimit,
    ...(headerRequestId === undefined ? {} : { requestId: headerRequestId }),
  });

  if (raw.status < 200 || raw.status > 299) throw errorFromStatus(raw, ctx, headerRequestId);
  const body = parseJsonBody(raw, ctx, headerRequestId);
  const data = readBody((b) => spec.read(b, raw.headers), body, ctx, {
    status: raw.status,
    requestId: headerRequestId,
    rateLimit,
  });
  return {
    data,
    meta: {
      status: raw.status,
      rateLimit,
      attempts: attempt,
      ...(headerRequestId === undefined ? {} : { requestId: headerRequestId }),
    },
  };
}

/**
 * Reads the whole body (an unread body keeps the connection busy), but no more than `maxBytes`:
 * an answer that never ends must not take the worker's memory with it.
 */
async function readCapped(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  spec: RequestSpec<unknown>,
) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > maxBytes) {
      body.destroy();
      throw new ApiError(`${spec.endpoint}: answer larger than ${maxBytes} bytes; not read further`, {
        endpoint: spec.endpoint,
        code: 'response_too_large',
        retryable: false,
      });
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** Maps a failure without a response. An abort is rethrown as is: shutdown is not an API failure. */
function fromNetworkError(error: unknown, spec: RequestSpec<unknown>, apiKey: string): unknown {
  if (spec.signal?.aborted === true) return spec.signal.reason;
  const code = errorCode(error);
  const detail = redact(error instanceof Error ? error.message : String(error), [apiKey]);
  if (code === 'UND_ERR_INVALID_ARG') return error; // a bug in how the request was built, not the network
  if (code !== undefined && CLOSED_CODES.has(code)) {
    return new ApiError(`${spec.endpoint}: the client is closed (${detail})`, {
      endpoint: spec.endpoint,
      code: 'client_closed',
      retryable: false,
      cause: error,
    });
  }
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new TransientError(`${spec.endpoint}: timed out (${code}: ${detail})`, {
      endpoint: spec.endpoint,
      code: 'timeout',
      reason: 'timeout',
      cause: error,
    });
  }
  return new TransientError(`${spec.endpoint}: connection failed (${code ?? 'error'}: ${detail})`, {
    endpoint: spec.endpoint,
    code: 'network',
    reason: 'network',
    cause: error,
  });
}
