/**
 * The window of the rate limit an API states: a second or a minute, decided from evidence only, since
 * a whole number (`10`) reads the same either way and the budget would be 60 times off. Evidence: a
 * fraction (a rate a second), the IETF draft's policy beside the limit (`RateLimit-Policy: 10;w=1`),
 * the header's own documented meaning (Amazon's SP-API states `x-amzn-RateLimit-Limit` in requests
 * a second), or a window member beside a limit in the body (`period: "second"`). Without any, a
 * minute (the contract's default), and said. Pure.
 */
import type { ContractFile } from '../../api/tooling.ts';

type RateLimit = NonNullable<ContractFile['rateLimit']>;

export interface Window {
  per: 'second' | 'minute' | 'other';
  /** What said it, for the note. */
  why: string;
}

/** `10;w=1`, `"default";q=100;w=10` (the draft's later form): the first policy's quota and window. */
export function policyOf(text: string): { quota?: number; window: number } | undefined {
  const first = text.split(',')[0] ?? '';
  const parts = first.split(';').map((p) => p.trim());
  const window = parts.find((p) => /^w=\d+$/.test(p));
  if (window === undefined) return undefined;
  const quota =
    parts[0] !== undefined && /^\d+$/.test(parts[0])
      ? parts[0]
      : parts.find((p) => /^q=\d+$/.test(p))?.slice(2);
  return { window: Number(window.slice(2)), ...(quota === undefined ? {} : { quota: Number(quota) }) };
}

/**
 * A window stated in seconds (the draft's `w`, a body's `windowSeconds: 1`), as `"10s"`, or as a word;
 * undefined when the value says no time at all (`unit: "requests"`), which is then no evidence.
 */
function windowFrom(value: unknown, unitSeconds: boolean): Window['per'] | undefined {
  if (typeof value === 'number') return value === 1 ? 'second' : value === 60 ? 'minute' : 'other';
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase();
  if (/^\d+$/.test(v)) return unitSeconds ? windowFrom(Number(v), true) : undefined;
  const count = /^(\d+)\s*(s|secs?|seconds?|m|mins?|minutes?)$/.exec(v);
  if (count !== null) return windowFrom(Number(count[1]) * (count[2]?.startsWith('s') ? 1 : 60), true);
  if (/^(s|secs?|seconds?|per_?second)$/.test(v)) return 'second';
  if (/^(m|mins?|minutes?|per_?minute)$/.test(v)) return 'minute';
  if (/^(h|hrs?|hours?|d|days?|months?|per_?(hour|day|month))$/.test(v)) return 'other';
  return undefined;
}

/** The window of a limit header `name` whose value is `value`, from the headers seen beside it. */
export function headerWindow(name: string, value: string, headers: ReadonlyMap<string, string>): Window {
  if (/^\d*\.\d+$/.test(value.trim())) return { per: 'second', why: 'a fraction, so a rate a second' };
  const policyText = headers.get('ratelimit-policy');
  const policy = policyText === undefined ? undefined : policyOf(policyText);
  if (policy !== undefined) {
    const per = windowFrom(policy.window, true) ?? 'other';
    return { per, why: `RateLimit-Policy: ${policyText} says a window of ${policy.window} s` };
  }
  if (/^x-amzn-ratelimit-limit$/i.test(name))
    return {
      per: 'second',
      why: "Amazon's SP-API documents this header in requests a second",
    };
  return { per: 'minute', why: 'nothing in the answers says its window' };
}

/** The window beside a limit in the body (`meta.rateLimit.period`), read by bodySignals. */
export function bodyWindow(path: string, value: unknown): Window {
  const per = windowFrom(value, /seconds?$|_s$|secs$/i.test(path));
  if (per === undefined)
    return {
      per: 'minute',
      why: `nothing in the answers says its window (${JSON.stringify(value)} at "${path}" is no time)`,
    };
  return { per, why: `the body says ${JSON.stringify(value)} at "${path}" beside it` };
}

const minuteOf = (value: string) => Math.floor(Number(value) * 60 + 1e-9);

/**
 * The limit's part of the suggestion: `per` and `limit` from the window, a note saying the evidence.
 * `current` is the contract's limit header, `per` its window; `signal` the header name or body path
 * found, `value` what it said there.
 */
export function limitSuggestion(
  signal: { header: string } | { body: string },
  value: string,
  window: Window,
  contractPer: RateLimit['per'],
  undecided: string[],
): Partial<RateLimit> {
  const limit = 'header' in signal ? signal.header : { body: signal.body };
  const where = 'header' in signal ? `headers: "${signal.header}"` : `limit: the body's "${signal.body}"`;
  if (window.per === 'second') {
    undecided.push(
      `${where} (limit) is ${value}: ${window.why}: read per second (per: second, ${minuteOf(value)} a minute); check it`,
    );
    return { per: 'second', limit };
  }
  if (window.per === 'other') {
    undecided.push(
      `${where} (limit) is ${value}: ${window.why}: a contract counts a minute or a second, so it is left out (limit: null)`,
    );
    return { limit: null };
  }
  const stated = !window.why.startsWith('nothing');
  if (contractPer === 'second' && !stated) {
    undecided.push(`${where} (limit) is ${value}: ${window.why}: your file's per: second is kept`);
    return { limit };
  }
  undecided.push(
    `${where} (limit) is ${value}: ${window.why}: read as requests a minute${stated ? '' : " (the default); if the API's document says a second, set per: second"}`,
  );
  // A minute stated where the user's file said a second: the minute suggested.
  return contractPer === 'second' ? { per: 'minute', limit } : { limit };
}

/** A limit in the body, its value and the window beside it (bodySignals). */
export interface BodyLimit {
  limit?: string;
  value?: unknown;
  window?: { path: string; value: unknown };
}

const LIMIT_HEADER = /rate.?limit.?limit|^ratelimit-limit$/;

/**
 * The limit's part of the suggestion from the headers seen (lower-cased) and the body: the contract's
 * header when an answer carries it, else the first limit header, else a limit every body states.
 */
export function suggestLimit(
  current: string | null | undefined,
  contractPer: RateLimit['per'],
  seen: ReadonlyMap<string, string>,
  body: BodyLimit,
  undecided: string[],
): Partial<RateLimit> {
  const name =
    current != null && seen.has(current.toLowerCase())
      ? current.toLowerCase()
      : [...seen.keys()].find((h) => LIMIT_HEADER.test(h) && !/quota/.test(h));
  if (name !== undefined) {
    const value = (seen.get(name) ?? '').trim();
    if (!/^\d+$/.test(value) && !/^\d*\.\d+$/.test(value)) {
      undecided.push(`headers: "${name}" (limit) is "${value}", not a whole count; left out`);
      return current == null ? {} : { limit: null };
    }
    const part = limitSuggestion(
      { header: name },
      value,
      headerWindow(name, value, seen),
      contractPer,
      undecided,
    );
    // What the contract already says is no change (header names are case-insensitive).
    if (typeof part.limit === 'string' && part.limit === current?.toLowerCase()) delete part.limit;
    if (part.per !== undefined && part.per === (contractPer ?? 'minute')) delete part.per;
    return part;
  }
  if (body.limit !== undefined) {
    const window =
      body.window === undefined
        ? { per: 'minute' as const, why: 'nothing in the answers says its window' }
        : bodyWindow(body.window.path, body.window.value);
    const part = limitSuggestion({ body: body.limit }, String(body.value), window, contractPer, undecided);
    if (part.per !== undefined && part.per === (contractPer ?? 'minute')) delete part.per;
    return part;
  }
  const dictionary = seen.get('ratelimit');
  if (dictionary !== undefined) {
    const policy = seen.get('ratelimit-policy');
    undecided.push(
      `headers: "RateLimit: ${dictionary}" is the IETF draft's one header: a contract reads a header as one number, not a member of it, so its limit is not read${policy === undefined ? '' : ` (RateLimit-Policy: ${policy} states its window)`}`,
    );
  }
  if (current != null)
    undecided.push(`headers: "${current}" (limit) was in no answer; keep it, rename it, or set it to null`);
  return {};
}
