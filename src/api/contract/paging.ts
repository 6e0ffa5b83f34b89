/**
 * Pagination styles compiled from the contract: where the next page is (a cursor or a URL in the
 * body, a Link header, page numbers, offsets) and when the list ends. A position is an opaque string
 * to the caller (the cursor, the next URL, the page number or the offset), resumable as `cursor`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { compileGetter } from './path.ts';
import type { PaginationSpec, PaginationStyle } from './schema.ts';

export type PageQuery = Record<string, string | number | undefined>;

/** `total`: the items in the whole list, when the answer states it (checked against the walk). */
export type NextPosition = { position: string | null; total?: number } | { error: string; path: string };

export interface CompiledPagination {
  style: PaginationStyle;
  limitParam: string;
  maxLimit: number;
  /** True when a position is a URL to request as it is (nextUrl, linkHeader). */
  positionIsUrl: boolean;
  /** A cursor sent without the other filters (`cursor.alone`): some APIs answer 400 to both. */
  tokenAlone: boolean;
  /** Page numbers or offsets without a total: an empty page after a full one is the end, not a gap. */
  emptyPageEnds: boolean;
  /** Query parameters for the page at `position` (null: the first page). */
  query(position: string | null, limit: number | undefined): PageQuery;
  /** Where the page after this one is; null after the last page. */
  next(
    body: unknown,
    headers: IncomingHttpHeaders,
    position: string | null,
    items: number,
    limit: number,
  ): NextPosition;
}

export function styleOf(spec: PaginationSpec): PaginationStyle[] {
  const styles: PaginationStyle[] = [];
  if (spec.cursor !== undefined) styles.push('cursor');
  if (spec.nextUrl !== undefined) styles.push('nextUrl');
  if (spec.linkHeader !== undefined) styles.push('linkHeader');
  if (spec.page !== undefined) styles.push('page');
  if (spec.offset !== undefined) styles.push('offset');
  return styles;
}

/** The `rel="next"` target of an RFC 8288 Link header, if any. */
export function linkNext(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const m of text.matchAll(/<([^>]*)>\s*((?:;\s*[^;,]+)*)/g)) {
    const params = m[2] ?? '';
    if (/;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?/i.test(params)) return m[1];
  }
  return undefined;
}

function totalAt(body: unknown, get: ((v: unknown) => unknown) | undefined): number | undefined | null {
  if (get === undefined) return undefined;
  const value = get(body);
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

export function compilePagination(spec: PaginationSpec): CompiledPagination {
  const limitParam = spec.limit?.param ?? 'limit';
  const maxLimit = spec.limit?.max ?? 100;
  const style = styleOf(spec)[0] ?? 'cursor';
  const base = { style, limitParam, maxLimit };
  const withLimit = (query: PageQuery, limit: number | undefined): PageQuery => ({
    ...query,
    [limitParam]: limit,
  });

  if (style === 'cursor') {
    const { param, next, total } = spec.cursor ?? { param: 'cursor', next: 'next_cursor' };
    const getNext = compileGetter(next);
    const getTotal = total === undefined ? undefined : compileGetter(total);
    return {
      ...base,
      positionIsUrl: false,
      tokenAlone: spec.cursor?.alone === true,
      emptyPageEnds: false,
      query: (position, limit) => withLimit({ [param]: position ?? undefined }, limit),
      next(body) {
        const value = getNext(body);
        // A stated total is optional here: absent is fine, anything but a count is not.
        const stated =
          getTotal === undefined || getTotal(body) === undefined ? undefined : totalAt(body, getTotal);
        if (stated === null) return { error: 'expected an item count', path: total ?? '' };
        const at = (position: string | null) =>
          stated === undefined ? { position } : { position, total: stated };
        if (value === null || value === undefined) return at(null);
        if (typeof value !== 'string' || value === '')
          return { error: 'expected a cursor (text) or null', path: next };
        return at(value);
      },
    };
  }
  if (style === 'nextUrl' || style === 'linkHeader') {
    const getNext = spec.nextUrl === undefined ? undefined : compileGetter(spec.nextUrl.next);
    const header = (spec.linkHeader?.header ?? 'link').toLowerCase();
    return {
      ...base,
      positionIsUrl: true,
      tokenAlone: true,
      emptyPageEnds: false,
      query: (_position, limit) => withLimit({}, limit),
      next(body, headers) {
        const value = getNext === undefined ? linkNext(headers[header]) : getNext(body);
        if (value === null || value === undefined || value === '') return { position: null };
        if (typeof value !== 'string')
          return { error: 'expected a URL (text) or null', path: spec.nextUrl?.next ?? header };
        return { position: value };
      },
    };
  }
  if (style === 'page') {
    const page = spec.page ?? { param: 'page' };
    const first = page.firstPage ?? 1;
    const pages = page.totalPages === undefined ? undefined : compileGetter(page.totalPages);
    const items = page.totalItems === undefined ? undefined : compileGetter(page.totalItems);
    return {
      ...base,
      positionIsUrl: false,
      tokenAlone: false,
      emptyPageEnds: pages === undefined && items === undefined,
      query: (position, limit) => withLimit({ [page.param]: position ?? first }, limit),
      next(body, _headers, position, count, limit) {
        const current = position === null ? first : Number(position);
        const totalPages = totalAt(body, pages);
        const totalItems = totalAt(body, items);
        if (totalPages === null) return { error: 'expected a page count', path: page.totalPages ?? '' };
        if (totalItems === null) return { error: 'expected an item count', path: page.totalItems ?? '' };
        const done = current - first + 1;
        const more =
          totalPages !== undefined
            ? done < totalPages
            : totalItems !== undefined
              ? done * limit < totalItems
              : count >= limit;
        const after = more && count > 0 ? String(current + 1) : null;
        return totalItems === undefined ? { position: after } : { position: after, total: totalItems };
      },
    };
  }
  const offset = spec.offset ?? { param: 'offset' };
  const total = offset.total === undefined ? undefined : compileGetter(offset.total);
  return {
    ...base,
    positionIsUrl: false,
    tokenAlone: false,
    emptyPageEnds: total === undefined,
    query: (position, limit) => withLimit({ [offset.param]: position ?? 0 }, limit),
    next(body, _headers, position, count, limit) {
      const at = (position === null ? 0 : Number(position)) + count;
      const all = totalAt(body, total);
      if (all === null) return { error: 'expected an item count', path: offset.total ?? '' };
      const more = all !== undefined ? at < all : count >= limit;
      const next = more && count > 0 ? String(at) : null;
      return all === undefined ? { position: next } : { position: next, total: all };
    },
  };
}
