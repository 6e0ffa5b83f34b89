import { badRequest, notFound } from '../errors.ts';
import { DAY, floorTo, HOUR } from '../time.ts';
import type { Book } from '../world/index.ts';
import type { Marketplace } from '../world/market.ts';
import { salesRow } from '../world/sales.ts';
import { type CursorState, decodeCursor, encodeCursor, listingFingerprint } from './pagination.ts';
import {
  checkAsin,
  checkMarketplace,
  dateParam,
  limitParam,
  marketplaceParam,
  Query,
  textValue,
  timestampParam,
} from './query.ts';
import type { ApiContext, ApiResult } from './types.ts';

/** The longest range /v1/sales and /v1/rankings accept (the contract's 93 days for sales). */
const MAX_RANGE_DAYS = 93;
/** Sales default to the provisional window: today and the 13 days before. */
const DEFAULT_SALES_DAYS = 14;

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/** The account books named by repeated `asin` filters (all account books without one). */
function accountBooks(ctx: ApiContext, query: Query): readonly Book[] {
  const asins = unique(query.all('asin').map((asin) => checkAsin('asin', asin)));
  if (asins.length === 0) return ctx.world.catalogue.books;
  return asins.map((asin) => {
    const book = ctx.world.catalogue.accountBook(asin);
    if (book === undefined) throw notFound(`ASIN ${asin} is not in this account`);
    return book;
  });
}

function checkRange(fromMs: number, toMs: number): void {
  if (fromMs > toMs) throw badRequest('from must not be after to');
  if (toMs - fromMs > MAX_RANGE_DAYS * DAY)
    throw badRequest(`from and to must be at most ${MAX_RANGE_DAYS} days apart`);
}

function nextCursor(fingerprint: string, state: CursorState, offset: number, total: number): string | null {
  return offset < total ? encodeCursor(fingerprint, { ...state, o: offset }) : null;
}

export function getRankings(ctx: ApiContext): ApiResult {
  const query = new Query(ctx.search, ['asin', 'keyword', 'marketplace', 'from', 'to', 'limit', 'cursor']);
  const books = accountBooks(ctx, query);
  const keywords = unique(query.all('keyword').map((keyword) => textValue('keyword', keyword, 200)));
  const marketplace = marketplaceParam(query);
  const limit = limitParam(query);
  const fromParam = timestampParam(query, 'from');
  const toParam = timestampParam(query, 'to');
  const fingerprint = listingFingerprint('rankings', query);
  const cursor = decodeCursor(query, fingerprint);
  const toMs = cursor?.to ?? toParam ?? ctx.nowMs;
  const fromMs = cursor?.from ?? fromParam ?? toMs - 24 * HOUR;
  checkRange(fromMs, toMs);

  const series = ctx.world.rankingSeries(books, keywords, marketplace);
  const offset = cursor?.o ?? 0;
  const data = series.slice(offset, offset + limit).map((ref) => ({
    asin: ref.book.asin,
    keyword: ref.keyword,
    marketplace,
    points: ctx.world.seriesPoints(ref, marketplace, fromMs, toMs, ctx.nowMs),
  }));
  const window = { from: fromMs, to: toMs };
  return {
    status: 200,
    body: { data, next_cursor: nextCursor(fingerprint, window, offset + limit, series.length) },
  };
}

export function getSales(ctx: ApiContext): ApiResult {
  const query = new Query(ctx.search, ['asin', 'marketplace', 'from', 'to', 'limit', 'cursor']);
  const books = accountBooks(ctx, query);
  const requested = query.all('marketplace');
  const marketplaces: Marketplace[] =
    requested.length === 0
      ? [marketplaceParam(query)]
      : unique(requested.map((m) => checkMarketplace('marketplace', m)));
  const limit = limitParam(query);
  const fromParam = dateParam(query, 'from');
  const toParam = dateParam(query, 'to');
  const fingerprint = listingFingerprint('sales', query);
  const cursor = decodeCursor(query, fingerprint);
  const today = floorTo(ctx.nowMs, DAY);
  const toMs =
    cursor?.to ??
    toParam ??
    (fromParam === undefined ? today : Math.min(today, fromParam + (DEFAULT_SALES_DAYS - 1) * DAY));
  const fromMs = cursor?.from ?? fromParam ?? toMs - (DEFAULT_SALES_DAYS - 1) * DAY;
  checkRange(fromMs, toMs);

  const pairs = books.flatMap((book) =>
    marketplaces.filter((m) => book.marketplaces.includes(m)).map((marketplace) => ({ book, marketplace })),
  );
  // Days after today have no figures yet; they are not an error, just absent.
  const days = Math.max(0, Math.floor((Math.min(toMs, today) - fromMs) / DAY) + 1);
  const total = days * pairs.length;
  const offset = cursor?.o ?? 0;
  const data = [];
  for (let i = offset; i < Math.min(total, offset + limit); i++) {
    const pair = pairs[i % pairs.length]!;
    const dateMs = fromMs + Math.floor(i / pairs.length) * DAY;
    data.push(salesRow(ctx.world.rng, ctx.world.events, pair.book, pair.marketplace, dateMs, ctx.nowMs));
  }
  const window = { from: fromMs, to: toMs };
  return { status: 200, body: { data, next_cursor: nextCursor(fingerprint, window, offset + limit, total) } };
}
