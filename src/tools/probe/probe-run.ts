/**
 * The requests `probe` makes: at most one per read endpoint, in an order that finds a real ASIN
 * (from the rankings, which list the account's books) before the book endpoints need one. Every
 * request first passes `beforeRequest` (the workspace's budget). A service that cannot be the API
 * (unreachable, refusing the key, answering HTML) stops the probe at that request.
 */
import type { CompiledContract, EndpointName } from '../../api/tooling.ts';
import { keyUrlOrThrow } from '../../util/key-url.ts';
import type { RecordedAnswer } from './probe-analyse.ts';

export const PROBED_ENDPOINTS = [
  'rankings',
  'reviews',
  'sales',
  'book',
  'bookKeywords',
  'keywordSearch',
] as const;
export type ProbedEndpoint = (typeof PROBED_ENDPOINTS)[number];

export type ProbeFailureKind = 'unreachable' | 'unauthorized' | 'not_json';

/** Why the probe stopped: one line for the user, the decision in `kind` and `status`. */
export class ProbeError extends Error {
  constructor(
    readonly kind: ProbeFailureKind,
    message: string,
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProbeError';
  }
}

export interface ProbeOptions {
  baseUrl: string;
  apiKey: string;
  /** The workspace's `allowInsecure` (util/key-url.ts: plain http off this machine only with it). */
  allowInsecure?: boolean;
  contract: CompiledContract;
  endpoints: readonly ProbedEndpoint[];
  /** A real ASIN; without it the rankings answer gives one. */
  asin?: string;
  /** The day the probe runs (UTC), for the sales and rankings windows. */
  now: number;
  /** Takes one request from the budget; throws when there is none. */
  beforeRequest: () => Promise<void>;
  timeoutMs?: number;
}

/** What will be requested: the picked endpoints, plus the rankings when a book needs an ASIN. */
export function plannedEndpoints(
  picked: readonly ProbedEndpoint[],
  asin: string | undefined,
): ProbedEndpoint[] {
  const needsAsin = asin === undefined && picked.some((e) => e === 'book' || e === 'bookKeywords');
  return PROBED_ENDPOINTS.filter((e) => picked.includes(e) || (e === 'rankings' && needsAsin));
}

/** An ASIN (B0 and 8 letters/digits, or an ISBN-10) anywhere in an answer. */
export function findAsin(body: unknown): string | undefined {
  const text = JSON.stringify(body) ?? '';
  return text.match(/"(B0[0-9A-Z]{8}|\d{9}[\dX])"/)?.[1];
}

function pathFor(endpoint: ProbedEndpoint, c: CompiledContract, asin: string, now: number): string {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const q = (entries: [string, string][]) => `?${new URLSearchParams(entries).toString()}`;
  const limit = (e: 'rankings' | 'reviews' | 'sales' | 'keywordSearch'): [string, string] => [
    c.pagination[e].limitParam,
    String(c.pagination[e].maxLimit),
  ];
  switch (endpoint) {
    case 'rankings':
      return `/v1/rankings${q([limit('rankings')])}`;
    case 'reviews':
      return `/v1/arc/reviews${q([limit('reviews')])}`;
    case 'sales':
      return `/v1/sales${q([[c.params.from, day(now - 7 * 86_400_000)], [c.params.to, day(now)], limit('sales')])}`;
    case 'book':
      return `/v1/books/${encodeURIComponent(asin)}`;
    case 'bookKeywords':
      return `/v1/books/${encodeURIComponent(asin)}/keywords`;
    case 'keywordSearch':
      return `/v1/keywords/search${q([[c.params.query, 'book'], limit('keywordSearch')])}`;
  }
}

async function request(
  options: ProbeOptions,
  endpoint: ProbedEndpoint,
  path: string,
): Promise<RecordedAnswer> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      // A redirect is a wrong base URL, not a place to send the key again.
      redirect: 'error',
    });
  } catch (error) {
    const reason =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new ProbeError('unreachable', `cannot reach ${options.baseUrl}: ${reason}`, undefined, {
      cause: error,
    });
  }
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const where = `GET ${path.split('?')[0]}`;
  if (response.status === 401)
    throw new ProbeError(
      'unauthorized',
      `the service refused the key (401 on ${where}): check the API key`,
      401,
    );
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch (error) {
    const what = /^\s*</.test(text) ? 'HTML' : 'something that is not JSON';
    throw new ProbeError(
      'not_json',
      `${options.baseUrl} answered ${where} with ${what} (status ${response.status}): is this the API's base URL?`,
      response.status,
      { cause: error },
    );
  }
  return { endpoint, method: 'GET', path, status: response.status, headers, body };
}

/** Probes the picked endpoints once each; the answers in request order. */
export async function probeService(options: ProbeOptions): Promise<RecordedAnswer[]> {
  // The key goes with every request: refused here, before the first one and before any budget is taken.
  keyUrlOrThrow(options.baseUrl, { allowInsecure: options.allowInsecure === true });
  const answers: RecordedAnswer[] = [];
  let asin = options.asin;
  for (const endpoint of plannedEndpoints(options.endpoints, options.asin)) {
    if ((endpoint === 'book' || endpoint === 'bookKeywords') && asin === undefined) continue;
    await options.beforeRequest();
    const answer = await request(
      options,
      endpoint,
      pathFor(endpoint, options.contract, asin ?? '', options.now),
    );
    asin ??= answer.status < 400 ? findAsin(answer.body) : undefined;
    answers.push(answer);
  }
  return answers;
}

/** Endpoints named on the command line, checked. */
export function parseEndpoints(names: readonly string[]): ProbedEndpoint[] | { unknown: string } {
  const out: ProbedEndpoint[] = [];
  for (const name of names.flatMap((n) => n.split(','))) {
    const found = PROBED_ENDPOINTS.find((e) => e === name.trim());
    if (found === undefined) return { unknown: name };
    out.push(found);
  }
  return out;
}

export type { EndpointName };
