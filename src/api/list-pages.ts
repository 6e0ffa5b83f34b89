/** A list page read through the contract's pagination: the items, where the next page is, a stated total. */
import type { IncomingHttpHeaders } from 'node:http';
import type { BodyReader, ReadResult } from './contract/compile.ts';
import type { CompiledPagination } from './contract/paging.ts';
import { SchemaMismatchError } from './errors.ts';
import type { ListPage } from './schemas.ts';

/** Reads one page: its items by `reader`, the next position (and a total, if stated) by `paging`. */
export function listPageReader<T>(
  paging: CompiledPagination,
  reader: BodyReader<T[]>,
  position: string | null,
  limit: number | undefined,
): (body: unknown, headers: IncomingHttpHeaders) => ReadResult<ListPage<T>> {
  return (body, headers) => {
    const items = reader(body);
    if (!items.ok) return items;
    const next = paging.next(body, headers, position, items.data.length, limit ?? items.data.length);
    if ('error' in next) {
      return { ok: false, issues: [{ path: next.path, message: next.error, field: '(pagination)' }] };
    }
    const data = { data: items.data, next_cursor: next.position };
    return { ok: true, data: next.total === undefined ? data : { ...data, total: next.total } };
  };
}

/** A next-page URL from the answer, as a path below the base URL; another origin is never followed. */
export function pathOfNextUrl(endpoint: string, position: string, origin: string, basePath: string): string {
  let url: URL | undefined;
  try {
    url = new URL(position, `${origin}${basePath}/`);
  } catch {
    url = undefined;
  }
  if (url === undefined || url.origin !== origin || !url.pathname.startsWith(`${basePath}/`)) {
    throw new SchemaMismatchError(
      `${endpoint}: the next page is at "${position.slice(0, 80)}", outside the API's base URL; not followed (the API key would go there)`,
      {
        endpoint,
        code: 'foreign_next_url',
        issues: [{ path: '(next page)', message: 'a URL outside the base URL', field: '(pagination)' }],
      },
    );
  }
  return url.pathname.slice(basePath.length) + url.search;
}
