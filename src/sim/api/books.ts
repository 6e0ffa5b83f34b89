import { badRequest, notFound } from '../errors.ts';
import type { Book } from '../world/index.ts';
import { normalizeQuery, searchKeywords } from '../world/keywords.ts';
import type { Marketplace } from '../world/market.ts';
import { decodeCursor, listingFingerprint, offsetPage } from './pagination.ts';
import { checkAsin, limitParam, marketplaceParam, Query, textValue } from './query.ts';
import type { ApiContext, ApiResult } from './types.ts';

function bookIn(ctx: ApiContext, marketplace: Marketplace): Book {
  const asin = checkAsin('asin', ctx.pathParams.asin ?? '');
  const book = ctx.world.catalogue.book(asin);
  if (book === undefined) throw notFound(`no book with ASIN ${asin}`);
  if (!book.marketplaces.includes(marketplace))
    throw notFound(`book ${asin} is not sold in marketplace ${marketplace}`);
  return book;
}

export function getBook(ctx: ApiContext): ApiResult {
  const query = new Query(ctx.search, ['marketplace']);
  const marketplace = marketplaceParam(query);
  const book = bookIn(ctx, marketplace);
  return { status: 200, body: ctx.world.bookPayload(book, marketplace, ctx.nowMs) };
}

export function getBookKeywords(ctx: ApiContext): ApiResult {
  const query = new Query(ctx.search, ['marketplace']);
  const marketplace = marketplaceParam(query);
  const book = bookIn(ctx, marketplace);
  return {
    status: 200,
    body: { asin: book.asin, data: ctx.world.bookKeywords(book, marketplace, ctx.nowMs) },
  };
}

export function searchKeywordsRoute(ctx: ApiContext): ApiResult {
  const query = new Query(ctx.search, ['q', 'marketplace', 'limit', 'cursor']);
  const q = query.one('q');
  if (q === undefined) throw badRequest('q is required: the search text, 1 to 200 characters');
  textValue('q', q, 200);
  const marketplace = marketplaceParam(query);
  const limit = limitParam(query);
  const fingerprint = listingFingerprint('keywords/search', query);
  const cursor = decodeCursor(query, fingerprint);
  const results = searchKeywords(ctx.world.rng, normalizeQuery(q), marketplace);
  return { status: 200, body: offsetPage(results, cursor?.o ?? 0, limit, fingerprint) };
}
