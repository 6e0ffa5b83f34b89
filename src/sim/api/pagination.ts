import { badRequest } from '../errors.ts';
import { hash32 } from '../prng.ts';
import type { Query } from './query.ts';

/**
 * Cursors are base64url JSON, opaque to clients. They carry the position, a fingerprint of the
 * endpoint and filters (a cursor from another query is refused), and any window resolved from
 * defaults on the first page, so every page of one listing describes the same time range.
 */
export interface CursorState {
  /** Offset into the listing. */
  o?: number;
  /** Keyset position: the sort key and id of the last item of the previous page. */
  k?: string;
  i?: string;
  /** A resolved time window (epoch ms). */
  from?: number;
  to?: number;
}

interface CursorBody extends CursorState {
  f: string;
}

export function listingFingerprint(endpoint: string, query: Query): string {
  return hash32(0, [endpoint, query.filters()]).toString(36);
}

export function encodeCursor(fingerprint: string, state: CursorState): string {
  const body: CursorBody = { f: fingerprint, ...state };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

function isCursorBody(value: unknown): value is CursorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  const optionalNumber = (key: string) => body[key] === undefined || Number.isSafeInteger(body[key]);
  const optionalString = (key: string) => body[key] === undefined || typeof body[key] === 'string';
  return (
    typeof body.f === 'string' &&
    optionalNumber('o') &&
    optionalNumber('from') &&
    optionalNumber('to') &&
    optionalString('k') &&
    optionalString('i') &&
    (body.o === undefined || (body.o as number) >= 0)
  );
}

/** The cursor's state, or undefined on a first page; a cursor that is not ours or not this query's is a 400. */
export function decodeCursor(query: Query, fingerprint: string): CursorState | undefined {
  const text = query.one('cursor');
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!isCursorBody(parsed) || parsed.f !== fingerprint) {
    throw badRequest(
      'cursor is not valid for this query; pass next_cursor of the previous page with the same filters',
    );
  }
  const { f: _fingerprint, ...state } = parsed;
  return state;
}

/** One page of an in-memory listing by offset. */
export function offsetPage<T>(
  items: readonly T[],
  offset: number,
  limit: number,
  fingerprint: string,
  extra: CursorState = {},
): { data: T[]; next_cursor: string | null } {
  const data = items.slice(offset, offset + limit);
  const next =
    offset + limit < items.length ? encodeCursor(fingerprint, { ...extra, o: offset + limit }) : null;
  return { data, next_cursor: next };
}
