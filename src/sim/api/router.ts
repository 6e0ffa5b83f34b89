import type { SimEndpoint } from '../dialect.ts';
import { badRequest, notFound } from '../errors.ts';
import { getBook, getBookKeywords, searchKeywordsRoute } from './books.ts';
import { getReviews } from './reviews.ts';
import { getRankings, getSales } from './series.ts';
import type { Handler } from './types.ts';

interface Route {
  name: SimEndpoint;
  method: 'GET' | 'POST';
  pattern: RegExp;
  names: readonly string[];
  handler: Handler;
}

const ROUTES: readonly Route[] = [
  { name: 'book', method: 'GET', pattern: /^\/v1\/books\/([^/]+)$/, names: ['asin'], handler: getBook },
  {
    name: 'bookKeywords',
    method: 'GET',
    pattern: /^\/v1\/books\/([^/]+)\/keywords$/,
    names: ['asin'],
    handler: getBookKeywords,
  },
  {
    name: 'keywordSearch',
    method: 'GET',
    pattern: /^\/v1\/keywords\/search$/,
    names: [],
    handler: searchKeywordsRoute,
  },
  { name: 'rankings', method: 'GET', pattern: /^\/v1\/rankings$/, names: [], handler: getRankings },
  {
    name: 'invites',
    method: 'POST',
    pattern: /^\/v1\/arc\/invites$/,
    names: [],
    handler: (ctx) => ctx.invites.handle(ctx),
  },
  { name: 'reviews', method: 'GET', pattern: /^\/v1\/arc\/reviews$/, names: [], handler: getReviews },
  { name: 'sales', method: 'GET', pattern: /^\/v1\/sales$/, names: [], handler: getSales },
];

export interface Match {
  name: SimEndpoint;
  handler: Handler;
  pathParams: Record<string, string>;
}

/** The endpoint of a request; unknown paths and methods answer 404 (the contract has no 405). */
export function route(method: string, pathname: string): Match {
  for (const candidate of ROUTES) {
    const m = candidate.pattern.exec(pathname);
    if (m === null || candidate.method !== method) continue;
    const pathParams: Record<string, string> = {};
    candidate.names.forEach((name, index) => {
      const raw = m[index + 1] ?? '';
      try {
        pathParams[name] = decodeURIComponent(raw);
      } catch {
        throw badRequest(`${name} in the path is not valid percent-encoding`);
      }
    });
    return { name: candidate.name, handler: candidate.handler, pathParams };
  }
  throw notFound(`no endpoint ${method} ${pathname}`);
}
