/** Cursor pagination: follow `next_cursor` until null, one request (and one budget unit) per page. */
import { SchemaMismatchError } from './errors.ts';
import type { ListPage } from './schemas.ts';
import type { ApiResponse, Page } from './types.ts';

export type FetchPage<T> = (cursor: string | null, page: number) => Promise<ApiResponse<ListPage<T>>>;

/**
 * What a list item is about when that is not what the request asked for (a review of another
 * campaign, a sales row of another marketplace), or null when it is what was asked.
 */
export type OffTopic<T> = (item: T) => string | null;

/**
 * Yields pages lazily: nothing is requested until the consumer asks, and a consumer that stops
 * early (break) spends no further requests. A cursor the API hands out twice would loop forever,
 * so it is reported as a protocol error instead.
 *
 * A walk that ends short is a protocol error too (`incomplete_list`), never the end of the list:
 * an empty page after a cursor (the API said there was more, then gave nothing), or a last page
 * that leaves the walk with fewer items than a `total` the API stated. Read as the whole list,
 * either would announce the missing items as removed. A page with an item about something else
 * than was asked (`offTopic`) is one too (`foreign_item`): one such item makes the whole answer
 * untrustworthy.
 */
export async function* paginate<T>(
  endpoint: string,
  fetchPage: FetchPage<T>,
  startCursor: string | null = null,
  offTopic?: OffTopic<T>,
  /** Page numbers or offsets with no total: a full last page is followed by an empty one, which ends the list. */
  emptyPageEnds = false,
): AsyncGenerator<Page<T>, void, undefined> {
  const followed = new Set<string>();
  if (startCursor !== null) followed.add(startCursor);
  let cursor = startCursor;
  let itemsRead = 0;
  for (let page = 0; ; page++) {
    const res = await fetchPage(cursor, page);
    const next = res.data.next_cursor;
    const fault = (code: string, path: string, message: string) =>
      new SchemaMismatchError(`${endpoint} page ${page}: ${message}`, {
        endpoint,
        status: res.meta.status,
        code,
        requestId: res.meta.requestId,
        rateLimit: res.meta.rateLimit,
        issues: [{ path, message }],
      });
    if (next !== null && followed.has(next)) {
      throw fault(
        'repeated_cursor',
        'next_cursor',
        `cursor "${next}" was already followed; stopping instead of looping`,
      );
    }
    if (cursor !== null && res.data.data.length === 0 && !(emptyPageEnds && next === null)) {
      throw fault(
        'incomplete_list',
        'data',
        'no items on a page asked for with a cursor; the walk is incomplete',
      );
    }
    if (offTopic !== undefined) {
      for (const [index, item] of res.data.data.entries()) {
        const other = offTopic(item);
        if (other !== null) {
          throw fault(
            'foreign_item',
            `data[${index}]`,
            `the item is about ${other.slice(0, 60)}, not what was asked`,
          );
        }
      }
    }
    itemsRead += res.data.data.length;
    const { total } = res.data;
    if (next === null && total !== undefined && itemsRead < total) {
      throw fault(
        'incomplete_list',
        'total',
        `the walk ended with ${itemsRead} items of the ${total} stated`,
      );
    }
    yield { items: res.data.data, nextCursor: next, meta: { ...res.meta, page } };
    if (next === null) return;
    followed.add(next);
    cursor = next;
  }
}

export interface CollectOptions {
  /** Stop after this many pages; the result then says `truncated` and where to resume. */
  maxPages?: number;
}

export interface Collected<T> {
  items: T[];
  /** Pages read. */
  pages: number;
  /** HTTP requests those pages took, quick retries included: what they cost against the budget. */
  requests: number;
  /** True when `maxPages` stopped the walk before the last page: the items are NOT the whole list. */
  truncated: boolean;
  /** Where to resume (pass as `cursor`) when truncated; null after the last page. */
  nextCursor: string | null;
}

/** Reads every page (or up to `maxPages`) into one array. Any failing page fails the whole call. */
export async function collectAll<T>(
  pages: AsyncIterable<Page<T>>,
  options: CollectOptions = {},
): Promise<Collected<T>> {
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  if (!(maxPages >= 1))
    throw new RangeError(`collectAll: maxPages must be at least 1, got ${options.maxPages}`);
  const out: Collected<T> = { items: [], pages: 0, requests: 0, truncated: false, nextCursor: null };
  for await (const page of pages) {
    out.items.push(...page.items);
    out.pages += 1;
    out.requests += page.meta.attempts;
    out.nextCursor = page.nextCursor;
    if (out.pages >= maxPages) {
      out.truncated = page.nextCursor !== null;
      break;
    }
  }
  return out;
}
