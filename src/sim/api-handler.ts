import type { IncomingMessage, ServerResponse } from 'node:http';
import { route } from './api/router.ts';
import { badRequest, codeForStatus, SimErrorAnswer } from './errors.ts';
import { addExtraFields, dropField, type Fault, withoutFigures } from './faults.ts';
import { errorBody, proxyPage, send } from './http.ts';
import type { SimKeySpec } from './keys.ts';
import type { RequestLogEntry } from './request-log.ts';
import type { SimState } from './state.ts';
import { httpDate, SECOND } from './time.ts';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

function authenticate(state: SimState, req: IncomingMessage): SimKeySpec | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1] === undefined ? undefined : state.keys.lookup(m[1]);
}

function retryAfterHeader(fault: Fault, nowMs: number): Record<string, string> {
  const spec = fault.retryAfter;
  if (spec === undefined) return {};
  if ('date' in spec) return { 'Retry-After': httpDate(nowMs + (spec.seconds ?? 5) * SECOND) };
  return { 'Retry-After': String(spec.seconds) };
}

function errorAnswer(error: SimErrorAnswer, requestId: string, headers: Record<string, string>): Answer {
  return {
    status: error.status,
    headers,
    body: errorBody(error.code, error.message, requestId, error.details),
  };
}

/** A dialect's own refusal (an unknown parameter) carries the request id, as every other error does. */
function withRequestId(body: unknown, requestId: string): unknown {
  if (typeof body !== 'object' || body === null || !('error' in body)) return body;
  const error = body.error;
  if (typeof error !== 'object' || error === null || 'request_id' in error) return body;
  return { ...body, error: { ...error, request_id: requestId } };
}

/** Runs the counted part: auth, limits, plan access, the endpoint. Faults are handled by the caller. */
function answer(
  state: SimState,
  req: IncomingMessage,
  url: URL,
  bodyText: string | undefined,
  nowMs: number,
  requestId: string,
  entry: RequestLogEntry,
  fault: Fault | undefined,
): Answer {
  const key = authenticate(state, req);
  if (key === undefined) {
    const error = new SimErrorAnswer(
      401,
      'unauthorized',
      'missing, unknown or revoked API key (send Authorization: Bearer <key>)',
    );
    return errorAnswer(error, requestId, { 'WWW-Authenticate': 'Bearer' });
  }
  entry.workspace = key.workspace;
  const plan = state.keys.plan(key.workspace) ?? key.plan;
  const decision = state.limits.take(key.workspace, plan, nowMs);
  if (!decision.ok) {
    const message =
      decision.code === 'quota_exceeded'
        ? `the workspace's monthly quota of ${plan.perMonth} requests is used up`
        : `the workspace's limit of ${plan.perMinute} requests a minute is reached`;
    const headers = { ...decision.headers, 'Retry-After': String(decision.retryAfterSeconds) };
    return errorAnswer(new SimErrorAnswer(429, decision.code, message), requestId, headers);
  }
  entry.counted = true;
  const headers = decision.headers;
  try {
    if (key.disabledEndpoints?.some((prefix) => url.pathname.startsWith(prefix)) === true) {
      throw new SimErrorAnswer(403, 'forbidden', `${url.pathname} is not enabled for this workspace's plan`);
    }
    if (bodyText === undefined) throw badRequest('the request body is larger than 1 MiB');
    const match = route(req.method ?? 'GET', url.pathname);
    const idempotency = req.headers['idempotency-key'];
    const text = state.dialect?.requestBody?.(match.name, bodyText) ?? bodyText;
    const handle = (search: URLSearchParams) =>
      match.handler({
        world: state.world,
        invites: state.invites,
        nowMs,
        workspace: key.workspace,
        pathParams: match.pathParams,
        search,
        bodyText: text,
        idempotencyKey: Array.isArray(idempotency) ? idempotency[0] : idempotency,
      });
    // "No figure" is written by the dialect (its sentinel), so it is made in our words, before it.
    const run = (search: URLSearchParams) => {
      const served = handle(search);
      return fault?.kind === 'no_figure' ? { ...served, body: withoutFigures(served.body) } : served;
    };
    const result =
      state.dialect === undefined
        ? run(url.searchParams)
        : state.dialect.serve(match.name, url, `http://${req.headers.host ?? '127.0.0.1'}`, run, nowMs);
    const body = result.status >= 400 ? withRequestId(result.body, requestId) : result.body;
    return { status: result.status, headers: { ...headers, ...result.headers }, body };
  } catch (error) {
    if (error instanceof SimErrorAnswer) return errorAnswer(error, requestId, headers);
    const message = error instanceof Error ? error.message : String(error);
    return errorAnswer(new SimErrorAnswer(500, 'internal', `simulator bug: ${message}`), requestId, headers);
  }
}

/** An answer of the assumed contract in the simulator's dialect (error body, header names), if it has one. */
function inDialect(state: SimState, result: Answer, nowMs: number): Answer {
  const dialect = state.dialect;
  if (dialect === undefined) return result;
  const body = result.status >= 400 ? dialect.errorBody(result.body) : result.body;
  const headers = {
    ...dialect.headers(result.headers, nowMs),
    ...(result.status >= 400 ? dialect.errorHeaders?.(result.body) : undefined),
  };
  const answer = { status: result.status, headers, body };
  const finished = dialect.finish?.(answer, nowMs);
  return finished === undefined ? answer : { ...finished, headers: finished.headers ?? {} };
}

function requestIdHeader(state: SimState, requestId: string): Record<string, string> {
  return state.dialect === undefined
    ? { 'X-Request-Id': requestId }
    : state.dialect.headers({ 'X-Request-Id': requestId }, 0);
}

/** Waits for a slow fault's delay; ends early when the simulator closes, whose sockets are gone then. */
function delay(state: SimState, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      state.pendingDelays.delete(finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    state.pendingDelays.add(finish);
  });
}

export async function handleApi(
  state: SimState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  bodyText: string | undefined,
): Promise<void> {
  const nowMs = state.clock.now();
  const seq = state.log.nextSeq();
  const requestId = `req_${state.world.rng.hex(16, 'request', seq)}`;
  const fault = state.faults.take(url.pathname, seq);
  const entry: RequestLogEntry = {
    seq,
    sim_time: new Date(nowMs).toISOString(),
    real_time: new Date().toISOString(),
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.search.slice(1),
    status: null,
    workspace: null,
    error_code: null,
    fault: fault?.kind ?? null,
    counted: false,
  };
  const finish = (status: number | null, errorCode: string | null) => {
    entry.status = status;
    entry.error_code = errorCode;
    state.log.push(entry);
  };

  // These faults stand for failures before the service (a proxy, the network): nothing is counted.
  if (fault?.kind === 'reset_connection') {
    req.socket.destroy();
    finish(null, null);
    return;
  }
  if (fault?.kind === 'html') {
    const status = fault.status ?? 502;
    send(res, status, retryAfterHeader(fault, nowMs), proxyPage(status), 'text/html; charset=utf-8');
    finish(status, null);
    return;
  }
  if (fault?.kind === 'status') {
    const status = fault.status ?? 503;
    const code = fault.code ?? codeForStatus(status);
    const key = authenticate(state, req);
    const plan = key === undefined ? undefined : (state.keys.plan(key.workspace) ?? key.plan);
    const limitHeaders =
      key === undefined || plan === undefined ? {} : state.limits.peek(key.workspace, plan, nowMs);
    entry.workspace = key?.workspace ?? null;
    const faulted = inDialect(
      state,
      {
        status,
        headers: { ...limitHeaders, ...retryAfterHeader(fault, nowMs) },
        body: errorBody(code, `injected fault: ${status} ${code}`, requestId),
      },
      nowMs,
    );
    send(
      res,
      status,
      { ...faulted.headers, ...requestIdHeader(state, requestId) },
      JSON.stringify(faulted.body),
    );
    finish(status, code);
    return;
  }

  const canonical = answer(state, req, url, bodyText, nowMs, requestId, entry, fault);
  const result = inDialect(state, canonical, nowMs);
  let body = result.body;
  if (fault?.kind === 'extra_field') body = addExtraFields(body);
  if (fault?.kind === 'drop_field' && fault.field !== undefined) body = dropField(body, fault.field);
  let text = JSON.stringify(body);
  let status = result.status;
  if (fault?.kind === 'malformed_json') {
    status = 200;
    text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  }
  if (fault?.kind === 'slow') await delay(state, fault.delayMs ?? 1500);
  send(res, status, { ...result.headers, ...requestIdHeader(state, requestId) }, text);
  // Logged in our words (the assumed contract's code), whatever the dialect calls it.
  const errorCode = status >= 400 && fault?.kind !== 'malformed_json' ? errorCodeOf(canonical.body) : null;
  finish(status, errorCode);
}

function errorCodeOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('error' in body)) return null;
  const error = body.error;
  if (typeof error !== 'object' || error === null || !('code' in error)) return null;
  return typeof error.code === 'string' ? error.code : null;
}

export function internalError(res: ServerResponse, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  send(res, 500, {}, JSON.stringify(errorBody('internal', `simulator bug: ${message}`)));
}
