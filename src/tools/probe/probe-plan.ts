/**
 * What a probe will ask, before it asks: the endpoints in an order that finds a real ASIN before the
 * book endpoints need one, how many requests that is when the API takes every parameter as the
 * contract names it, the cap, and each request's parameters under the contract's names and formats
 * (or the names an earlier answer taught). Pure.
 */
import type { CompiledContract } from '../../api/tooling.ts';
import { DAY_MS } from '../../util/time-units.ts';
import type { RecordedAnswer } from './probe-analyse.ts';
import { asksSecondPage } from './probe-cursor.ts';
import { contractParam, type PlannedParam, type ProbeParam } from './probe-params.ts';

export const PROBED_ENDPOINTS = [
  'rankings',
  'reviews',
  'sales',
  'book',
  'bookKeywords',
  'keywordSearch',
] as const;
export type ProbedEndpoint = (typeof PROBED_ENDPOINTS)[number];

/** The default cap on a probe's requests: the answers, their follow-ups and the names tried again. */
export const DEFAULT_MAX_PROBE_REQUESTS = 30;

/** What will be requested: the picked endpoints, plus the rankings when a book needs an ASIN. */
export function plannedEndpoints(
  picked: readonly ProbedEndpoint[],
  asin: string | undefined,
): ProbedEndpoint[] {
  const needsAsin = asin === undefined && picked.some((e) => e === 'book' || e === 'bookKeywords');
  return PROBED_ENDPOINTS.filter((e) => picked.includes(e) || (e === 'rankings' && needsAsin));
}

/**
 * Requests a probe makes when the API takes every parameter as the contract names it: one per
 * planned endpoint, and a second rankings (one book, a time window) and reviews (one campaign) request
 * that try the filters the first answers gave values for; with `contract`, the second page of a list it
 * pages by a cursor without `alone` (whether the token goes beside the filters).
 */
export function plannedRequests(
  picked: readonly ProbedEndpoint[],
  asin: string | undefined,
  contract?: CompiledContract,
): number {
  const planned = plannedEndpoints(picked, asin);
  // The second page of a list the contract pages by a cursor without `alone` (probe-cursor.ts).
  const second = contract !== undefined && asksSecondPage(contract, planned) ? 1 : 0;
  return (
    planned.length + (planned.includes('rankings') ? 1 : 0) + (planned.includes('reviews') ? 1 : 0) + second
  );
}

/** An ASIN (B0 and 8 letters/digits, or an ISBN-10) anywhere in an answer. */
export function findAsin(body: unknown): string | undefined {
  const text = JSON.stringify(body) ?? '';
  return text.match(/"(B0[0-9A-Z]{8}|\d{9}[\dX])"/)?.[1];
}

/** Up to one more ASIN of the account than `asin`, from the rankings' answers. */
function otherAsins(answers: readonly RecordedAnswer[], asin: string): string[] {
  const text = answers
    .filter((a) => a.endpoint === 'rankings' && a.status < 300)
    .map((a) => JSON.stringify(a.body) ?? '')
    .join('');
  const found = [...text.matchAll(/"(B0[0-9A-Z]{8})"/g)].map((m) => m[1] ?? '').find((a) => a !== asin);
  return found === undefined ? [] : [found];
}

/** The keywords the rankings' answers name for `asin` (a string under a key like keyword or term). */
function keywordsNamed(answers: readonly RecordedAnswer[], asin: string): string[] {
  const out = new Set<string>();
  for (const a of answers) {
    if (a.endpoint !== 'rankings' || a.status >= 300) continue;
    const text = JSON.stringify(a.body) ?? '';
    for (const after of text.split(`"${asin}"`).slice(1)) {
      const m = /"(?:keyword|term|kw|phrase|search_?term)"\s*:\s*"([^"]{1,100})"/i.exec(after.slice(0, 400));
      if (m?.[1] !== undefined) out.add(m[1]);
      if (out.size >= 2) return [...out];
    }
  }
  return [...out];
}

/**
 * Two keywords: one of `asin`'s and one of the other book's when it has one, so that an answer that
 * reads both values of each parameter holds items for each (an API that reads only the first of
 * repeated values shows it: probe-lists.ts); else two of `asin`'s.
 */
function keywordsOf(answers: readonly RecordedAnswer[], asin: string, other: string | undefined): string[] {
  const own = keywordsNamed(answers, asin);
  const theirs = other === undefined ? [] : keywordsNamed(answers, other).filter((k) => !own.includes(k));
  return own[0] !== undefined && theirs[0] !== undefined ? [own[0], theirs[0]] : own;
}

export function findCampaign(body: unknown): string | undefined {
  const text = JSON.stringify(body) ?? '';
  return text.match(/"campaign_?id"\s*:\s*"([^"]+)"/i)?.[1];
}

/** Counts in the answers that are Keepa time (minutes since 2011: about 8 million these years). */
export function keepaTimeIn(answers: readonly RecordedAnswer[]): boolean {
  const text = answers.map((a) => JSON.stringify(a.body) ?? '').join('');
  return /"\w*(time|update|observed|at)\w*"\s*:\s*[2-9]\d{6}\b/i.test(text);
}

/** Marketplaces the answers send as small numbers (Keepa's domain ids: 1 is US). */
export function numberedMarkets(answers: readonly RecordedAnswer[]): boolean {
  const text = answers.map((a) => JSON.stringify(a.body) ?? '').join('');
  return /"\w*(domain|market)\w*"\s*:\s*\d{1,2}\b/i.test(text);
}

/** US as the answers write marketplaces: Keepa's domain 1, or Amazon's marketplace id. */
function marketIdIn(answers: readonly RecordedAnswer[]): string | undefined {
  if (numberedMarkets(answers)) return '1';
  const text = answers.map((a) => JSON.stringify(a.body) ?? '').join('');
  return text.includes('"ATVPDKIKX0DER"') ? 'ATVPDKIKX0DER' : undefined;
}

export interface Planned {
  endpoint: ProbedEndpoint;
  path: string;
  params: PlannedParam[];
}

export function plan(
  endpoint: ProbedEndpoint,
  c: CompiledContract,
  known: { asin: string; campaign?: string; followUp: boolean; answers: readonly RecordedAnswer[] },
  now: number,
  learnt: ReadonlyMap<ProbeParam, string>,
): Planned {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const param = (p: ProbeParam, value: string): PlannedParam => {
    if (p === 'limit') {
      const paging =
        endpoint === 'bookKeywords' ? c.pagination.bookKeywords : c.pagination[endpoint as 'rankings'];
      return { param: p, value, name: learnt.get(p) ?? paging?.limitParam ?? 'limit' };
    }
    const own = contractParam(c, endpoint, p);
    return { param: p, value, ...own, name: learnt.get(p) ?? own.name };
  };
  const keywordParam = (keywords: string[]): PlannedParam[] =>
    keywords[0] === undefined ? [] : [{ ...param('keyword', keywords[0]), values: keywords }];
  const limit = (e: 'rankings' | 'reviews' | 'sales' | 'keywordSearch') =>
    param('limit', String(c.pagination[e].maxLimit));
  const market = () => {
    const written = c.queries[endpoint].build({ marketplace: 'US' })[0]?.[1] ?? 'US';
    const own = written === 'US' ? marketIdIn(known.answers) : undefined;
    return param('marketplace', own ?? written);
  };
  const asin = encodeURIComponent(known.asin);
  const other = endpoint === 'rankings' && known.followUp ? otherAsins(known.answers, known.asin) : [];
  switch (endpoint) {
    case 'rankings':
      return known.followUp
        ? {
            endpoint,
            path: '/v1/rankings',
            params: [
              // Two ASINs when the account has them: whether several go repeated or comma-joined.
              {
                ...param('asin', known.asin),
                values: [known.asin, ...other],
              },
              // Two keywords, as run sends several: their name, and whether they go comma-joined.
              ...keywordParam(keywordsOf(known.answers, known.asin, other[0])),
              param('from', iso(now - DAY_MS)),
              param('to', iso(now)),
              limit('rankings'),
            ],
          }
        : { endpoint, path: '/v1/rankings', params: [limit('rankings')] };
    case 'reviews':
      return {
        endpoint,
        path: '/v1/arc/reviews',
        params: [
          ...(known.followUp && known.campaign !== undefined ? [param('campaign', known.campaign)] : []),
          limit('reviews'),
        ],
      };
    case 'sales':
      return {
        endpoint,
        path: '/v1/sales',
        params: [market(), param('from', day(now - 7 * DAY_MS)), param('to', day(now)), limit('sales')],
      };
    case 'book':
      return { endpoint, path: `/v1/books/${asin}`, params: [market()] };
    case 'bookKeywords':
      return { endpoint, path: `/v1/books/${asin}/keywords`, params: [market()] };
    case 'keywordSearch':
      return {
        endpoint,
        path: '/v1/keywords/search',
        params: [param('query', 'book'), limit('keywordSearch')],
      };
  }
}
