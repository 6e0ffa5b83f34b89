/**
 * Rate-limit, quota and request-id signals compiled from the contract: each one is a header or a
 * place in the body (`{ body: path }`), read per answer. Quota "used" becomes "remaining" against the
 * stated limit. An absent or unreadable signal is left out, never guessed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { RateLimitInfo } from '../types.ts';
import { compileGetter } from './path.ts';
import type { ContractFile, SignalSpec } from './schema.ts';

type Reader = (headers: IncomingHttpHeaders, body: unknown) => unknown;

function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const first = (Array.isArray(value) ? value[0] : value)?.trim();
  return first === undefined || first === '' ? undefined : first;
}

function compileSignal(spec: SignalSpec | null | undefined): Reader | undefined {
  if (spec === null || spec === undefined) return undefined;
  if (typeof spec === 'string') {
    const name = spec.toLowerCase();
    return (headers) => headerText(headers, name);
  }
  const get = compileGetter(spec.body);
  return (_headers, body) => get(body);
}

function count(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * A rate stated per second (SP-API's `x-amzn-RateLimit-Limit: 0.5`, a request every 2 s) as the
 * whole requests a minute the budget's window counts (30): floored, so never more than the API allows.
 */
function perSecondAsMinute(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n * 60 + 1e-9) : undefined;
}

function instant(value: unknown, format: string, nowMs: number): number | undefined {
  if (format === 'rfc3339') {
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isFinite(ms) ? ms : undefined;
  }
  const n = count(value);
  if (n === undefined) return undefined;
  return format === 'epoch_ms' ? n : format === 'delta_s' ? nowMs + n * 1000 : n * 1000;
}

export interface CompiledSignals {
  /** True when some signal is in the body: the transport then hands the parsed body over. */
  readonly inBody: boolean;
  rateLimit(headers: IncomingHttpHeaders, nowMs: number, body?: unknown): RateLimitInfo;
  requestId(headers: IncomingHttpHeaders, body?: unknown): string | undefined;
  /** A 429's body or headers say the month's quota is spent (`errors.monthWhen`), whatever its code. */
  monthly(headers: IncomingHttpHeaders, body: unknown): boolean;
}

export function compileSignals(contract: ContractFile): CompiledSignals {
  const rl = contract.rateLimit ?? {};
  const when = contract.errors?.monthWhen;
  const monthAt =
    when === undefined
      ? undefined
      : when.header !== undefined
        ? compileSignal(when.header)
        : when.path !== undefined
          ? compileSignal({ body: when.path })
          : undefined;
  const perSecond = rl.per === 'second';
  const limit = compileSignal(rl.limit);
  const remaining = compileSignal(rl.remaining);
  const quotaLimit = compileSignal(rl.quotaLimit);
  const quotaRemaining = compileSignal(rl.quotaRemaining);
  const quotaUsed = compileSignal(rl.quotaUsed);
  const reset =
    rl.reset === null || rl.reset === undefined
      ? undefined
      : {
          read: compileSignal('header' in rl.reset ? rl.reset.header : { body: rl.reset.body }),
          format: rl.reset.format,
        };
  const quotaReset =
    rl.quotaReset === null || rl.quotaReset === undefined
      ? undefined
      : { read: compileSignal({ body: rl.quotaReset.body }), format: rl.quotaReset.format };
  const idHeader = (contract.requestIdHeader ?? 'X-Request-Id').toLowerCase();
  const idBody = contract.requestIdBody === undefined ? undefined : compileGetter(contract.requestIdBody);
  const specs = [
    rl.limit,
    rl.remaining,
    rl.quotaLimit,
    rl.quotaRemaining,
    rl.quotaUsed,
    rl.reset,
    rl.quotaReset,
  ];
  const inBody =
    idBody !== undefined || specs.some((s) => typeof s === 'object' && s !== null && 'body' in s);
  // A header is text: `equals: 0` matches "0" (a quota-remaining header of 0 on the 429).
  const monthly = (headers: IncomingHttpHeaders, body: unknown) => {
    if (monthAt === undefined || when === undefined) return false;
    const value = monthAt(headers, body);
    return when.header === undefined
      ? value === when.equals
      : typeof value === 'string' && value.toLowerCase() === String(when.equals).toLowerCase();
  };
  return {
    monthly,
    inBody,
    rateLimit(headers, nowMs, body) {
      const info: RateLimitInfo = {};
      const at = (read: Reader | undefined) => (read === undefined ? undefined : count(read(headers, body)));
      const l = perSecond
        ? limit === undefined
          ? undefined
          : perSecondAsMinute(limit(headers, body))
        : at(limit);
      // A per-second bucket's remaining says nothing of the minute: not read (validate refuses it).
      const r = perSecond ? undefined : at(remaining);
      const ql = at(quotaLimit);
      const used = at(quotaUsed);
      const qr =
        at(quotaRemaining) ?? (ql !== undefined && used !== undefined ? Math.max(0, ql - used) : undefined);
      if (l !== undefined) info.limit = l;
      if (r !== undefined) info.remaining = r;
      if (reset?.read !== undefined) {
        const ms = instant(reset.read(headers, body), reset.format, nowMs);
        if (ms !== undefined) info.resetAt = ms;
      }
      if (ql !== undefined) info.quotaLimit = ql;
      if (qr !== undefined) info.quotaRemaining = qr;
      if (quotaReset?.read !== undefined) {
        const ms = instant(quotaReset.read(headers, body), quotaReset.format, nowMs);
        if (ms !== undefined) info.quotaResetAt = ms;
      }
      return info;
    },
    requestId(headers, body) {
      const fromHeader = headerText(headers, idHeader);
      if (fromHeader !== undefined || idBody === undefined) return fromHeader;
      const value = idBody(body);
      return typeof value === 'string' && value !== '' ? value : undefined;
    },
  };
}
