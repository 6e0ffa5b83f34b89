/** Cursor pagination: follow `next_cursor` until null, one request (and one budget unit) per page. */
import { SchemaMismatchError } from './errors.ts';
import type { ListPage } from './schemas.ts';
import type { ApiResponse, Page } from './types.ts';

export type FetchPage<T> = (cursor: string | null, page: number) => Promise<ApiResponse<ListPage<T>>>;

/**
 * Yields pages lazily: nothing is requested until the consumer asks, and a consumer that stops
 * early (break) spends no further requests. A cursor the API hands out twice would loop forever,
 * so it is reported as a protocol error instead.
 */
export async function* paginate<T>(
  endpoint: string,
  fetchPage: FetchPage<T>,
  startCursor: string | null = null,
): AsyncGenerator<Page<T>, void, undefined> {
  const followed = new Set<string>();
  if (startCursor !== null) followed.add(startCursor);
  let cursor = startCursor;
  for (let page = 0; ; page++) {
    const res = await fetchPage(cursor, page);
    const next = res.data.next_cursor;
    if (next !== null && followed.has(next)) {
      throw new SchemaMismatchError(
        `${endpoint} returned cursor "${next}" on page ${page} that was already followed; stopping instead of looping`,
        {
          endpoint,
          status: res.meta.status,
          code: 'repeated_cursor',
          requestId: res.meta.requestId,
          rateLimit: res.meta.rateLimit,
          issues: [{ path: 'next_cursor', message: `cursor "${next}" was already followed` }],
        },
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
