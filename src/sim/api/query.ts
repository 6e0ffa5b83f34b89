import { badRequest } from '../errors.ts';
import { parseDate, parseTimestamp } from '../time.ts';
import { isMarketplace, MARKETPLACES, type Marketplace } from '../world/market.ts';

const ASIN_RE = /^[A-Z0-9]{10}$/;
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** The query string of one request, checked against the parameters its endpoint takes. */
export class Query {
  constructor(
    private readonly params: URLSearchParams,
    allowed: readonly string[],
  ) {
    for (const name of new Set(params.keys())) {
      if (!allowed.includes(name)) {
        const takes = allowed.length === 0 ? 'no query parameters' : allowed.join(', ');
        throw badRequest(`unknown query parameter "${name}"; this endpoint takes ${takes}`);
      }
    }
  }

  /** A parameter that may appear once. */
  one(name: string): string | undefined {
    const values = this.params.getAll(name);
    if (values.length > 1) throw badRequest(`query parameter "${name}" may be given only once`);
    return values[0];
  }

  /** A parameter that may repeat (`asin=A&asin=B`). */
  all(name: string): string[] {
    return this.params.getAll(name);
  }

  /** The parameters other than the page position, sorted: what a cursor must stay bound to. */
  filters(): string {
    return [...this.params]
      .filter(([name]) => name !== 'cursor' && name !== 'limit')
      .map(([name, value]) => `${name}=${value}`)
      .sort()
      .join('&');
  }
}

export function checkAsin(name: string, value: string): string {
  if (!ASIN_RE.test(value)) throw badRequest(`${name} must be 10 characters A-Z or 0-9, got "${value}"`);
  return value;
}

export function checkMarketplace(name: string, value: string): Marketplace {
  if (!isMarketplace(value))
    throw badRequest(`${name} must be one of ${MARKETPLACES.join(', ')}, got "${value}"`);
  return value;
}

export function marketplaceParam(query: Query): Marketplace {
  const value = query.one('marketplace');
  return value === undefined ? 'US' : checkMarketplace('marketplace', value);
}

export function limitParam(query: Query): number {
  const value = query.one('limit');
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = Number(value);
  if (!/^\d{1,4}$/.test(value) || limit < 1 || limit > MAX_LIMIT) {
    throw badRequest(`limit must be a whole number from 1 to ${MAX_LIMIT}, got "${value}"`);
  }
  return limit;
}

export function timestampParam(query: Query, name: string): number | undefined {
  const value = query.one(name);
  if (value === undefined) return undefined;
  const ms = parseTimestamp(value);
  if (ms === undefined)
    throw badRequest(`${name} must be an RFC 3339 timestamp like 2026-11-21T14:00:00Z, got "${value}"`);
  return ms;
}

export function dateParam(query: Query, name: string): number | undefined {
  const value = query.one(name);
  if (value === undefined) return undefined;
  const ms = parseDate(value);
  if (ms === undefined) throw badRequest(`${name} must be a date YYYY-MM-DD, got "${value}"`);
  return ms;
}

/** A free-text parameter of 1..max characters. */
export function textValue(name: string, value: string, max: number): string {
  if (value.trim() === '') throw badRequest(`${name} must not be empty`);
  if (value.length > max) throw badRequest(`${name} must be at most ${max} characters, got ${value.length}`);
  return value;
}
