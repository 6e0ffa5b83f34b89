/**
 * The simulator's rate-limit, quota and request-id headers (the assumed contract's names) in the
 * dialect: renamed and re-formatted where the dialect has headers, moved into the body where it
 * states them there (`{ body: path }`, `requestIdBody`), a quota "used" computed from limit and remaining.
 * A limit also says its window the way such APIs do, though the contract has no place for it (the
 * client reads the window from `per`; probe has to find it): beside the IETF draft's `RateLimit-Limit`
 * its `RateLimit-Policy: 10;w=1`, and beside a limit in the body a `period` member ("second", "minute").
 */
import { type CompiledContract, type ContractFile, compileSetter } from '../../api/tooling.ts';

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type Signal = NonNullable<ContractFile['rateLimit']>['limit'];

const OURS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  quotaLimit: 'X-Quota-Limit',
  quotaRemaining: 'X-Quota-Remaining',
} as const;

/**
 * The value of a signal from our headers (quota used: the limit minus what remains; a limit the
 * dialect states per second: our minute's divided by 60, 30 → "0.5").
 */
function signalValue(
  key: keyof typeof OURS | 'quotaUsed',
  headers: Record<string, string>,
  perSecond = false,
): string | undefined {
  const ours = key === 'quotaUsed' ? undefined : headers[OURS[key]];
  if (key === 'limit' && perSecond && ours !== undefined) return String(Number(ours) / 60);
  if (key !== 'quotaUsed') return ours;
  const limit = headers[OURS.quotaLimit];
  const remaining = headers[OURS.quotaRemaining];
  return limit === undefined || remaining === undefined
    ? undefined
    : String(Number(limit) - Number(remaining));
}

function resetValue(epochS: number, format: string, nowMs: number): string | number {
  if (format === 'epoch_ms') return epochS * 1000;
  if (format === 'delta_s') return Math.max(0, Math.ceil(epochS - nowMs / 1000));
  if (format === 'rfc3339') return new Date(epochS * 1000).toISOString();
  return epochS;
}

function signalsOf(contract: CompiledContract): [keyof typeof OURS | 'quotaUsed', Signal][] {
  const rl = contract.source.rateLimit ?? {};
  return [
    ['limit', rl.limit],
    ['remaining', rl.remaining],
    ['quotaLimit', rl.quotaLimit],
    ['quotaRemaining', rl.quotaRemaining],
    ['quotaUsed', rl.quotaUsed],
  ];
}

/** Headers in the dialect: header signals renamed, body signals left under our names for `bodySignals`. */
export function headerSignals(contract: CompiledContract) {
  const rl = contract.source.rateLimit ?? {};
  const signals = signalsOf(contract);
  const idHeader = contract.source.requestIdHeader;
  const idInBody = contract.source.requestIdBody !== undefined;
  return (headers: Record<string, string>, nowMs: number): Record<string, string> => {
    const out: Record<string, string> = { ...headers };
    const inBody = signals.some(([, s]) => typeof s === 'object' && s !== null);
    for (const [key, signal] of signals) {
      if (typeof signal === 'string') {
        const value = signalValue(key, headers, rl.per === 'second');
        if (value !== undefined) out[signal] = value;
        // The draft's policy states a whole quota and its window in seconds.
        if (
          key === 'limit' &&
          /^ratelimit-limit$/i.test(signal) &&
          value !== undefined &&
          /^\d+$/.test(value)
        )
          out['RateLimit-Policy'] = `${value};w=${rl.per === 'second' ? 1 : 60}`;
      }
    }
    // Our names go unless a body signal still needs them (bodySignals takes them out).
    if (!inBody)
      for (const name of Object.values(OURS)) if (!signals.some(([, s]) => s === name)) delete out[name];
    const retry = out['Retry-After'];
    delete out['Retry-After'];
    if (retry !== undefined && rl.retryAfter !== null) out[rl.retryAfter ?? 'Retry-After'] = retry;
    const id = out['X-Request-Id'];
    if (id !== undefined && !idInBody) {
      delete out['X-Request-Id'];
      if (idHeader !== undefined) out[idHeader] = id;
    }
    const reset = out['X-RateLimit-Reset'];
    delete out['X-RateLimit-Reset'];
    if (reset !== undefined && rl.reset !== null && rl.reset !== undefined) {
      if ('header' in rl.reset)
        out[rl.reset.header] = String(resetValue(Number(reset), rl.reset.format, nowMs));
      else out['X-RateLimit-Reset'] = reset;
    }
    return out;
  };
}

/** Moves the body signals out of the headers into an object body. */
export function bodySignals(contract: CompiledContract) {
  const rl = contract.source.rateLimit ?? {};
  const place: [keyof typeof OURS | 'quotaUsed', (t: Record<string, unknown>, v: unknown) => void][] = [];
  for (const [key, signal] of signalsOf(contract)) {
    if (typeof signal === 'object' && signal !== null) place.push([key, compileSetter(signal.body)]);
  }
  // A limit's window beside it in the body (`meta.rateLimit.period`).
  const limitAt = typeof rl.limit === 'object' && rl.limit !== null ? rl.limit.body : undefined;
  const setPeriod =
    limitAt === undefined
      ? undefined
      : compileSetter(
          limitAt.includes('.') ? `${limitAt.slice(0, limitAt.lastIndexOf('.'))}.period` : 'period',
        );
  const idBody = contract.source.requestIdBody;
  const setId = idBody === undefined ? undefined : compileSetter(idBody);
  const reset = rl.reset !== null && rl.reset !== undefined && 'body' in rl.reset ? rl.reset : undefined;
  const setReset = reset === undefined ? undefined : compileSetter(reset.body);
  const quotaReset = rl.quotaReset ?? undefined;
  const setQuotaReset = quotaReset === undefined ? undefined : compileSetter(quotaReset.body);
  const active =
    place.length > 0 || setId !== undefined || setReset !== undefined || setQuotaReset !== undefined;
  return (answer: Answer, nowMs: number): Answer => {
    if (!active) return answer;
    const headers = { ...answer.headers };
    const body = answer.body;
    const target =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : undefined;
    if (target !== undefined) {
      for (const [key, set] of place) {
        const value = signalValue(key, headers, rl.per === 'second');
        if (value !== undefined) set(target, Number(value));
        if (key === 'limit' && value !== undefined && setPeriod !== undefined)
          setPeriod(target, rl.per === 'second' ? 'second' : 'minute');
      }
      const id = headers['X-Request-Id'];
      if (setId !== undefined && id !== undefined) setId(target, id);
      const minuteReset = headers['X-RateLimit-Reset'];
      if (setReset !== undefined && reset !== undefined && minuteReset !== undefined)
        setReset(target, resetValue(Number(minuteReset), reset.format, nowMs));
      if (setQuotaReset !== undefined && quotaReset !== undefined) {
        const now = new Date(nowMs);
        const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
        setQuotaReset(target, resetValue(next, quotaReset.format, nowMs));
      }
    }
    for (const name of [...Object.values(OURS), 'X-RateLimit-Reset']) {
      if (!signalsOf(contract).some(([, s]) => s === name)) delete headers[name];
    }
    if (setId !== undefined) delete headers['X-Request-Id'];
    return { ...answer, headers };
  };
}
