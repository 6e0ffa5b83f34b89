/**
 * The simulator's side of a dialect's query (`sim --contract`): the dialect's parameter names and
 * value formats back to the simulator's, refused with a 400 naming the parameter as a strict API
 * would. Two habits of real APIs are served here: a page token that must come without the other
 * filters (`cursor.alone`: the token carries them, as SP-API's nextToken does), and, as an option,
 * an API that reads only the first of a comma-joined parameter sent repeated, without a 400.
 */
import {
  type CompiledContract,
  DEFAULT_CONTRACT,
  type EndpointName,
  isListEndpoint,
  mergePagination,
  type PaginationSpec,
} from '../../api/tooling.ts';

export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface SimDialectOptions {
  /**
   * What a parameter the dialect joins with commas does when it comes repeated: `refuse` (a 400
   * asking for it comma-joined, the default) or `first` (only the first value is read, no error).
   */
  repeatedValues?: 'refuse' | 'first';
  /**
   * The day in progress (the simulator's UTC day) has no figure yet in the sales money fields whose
   * contract states `noFigure`: they are sent as its first value (-1), as Keepa does before its data is
   * in (serve-sales.ts). Off by default: a dialect's reads then equal the assumed contract's every day.
   */
  todayWithoutFigures?: boolean;
  /**
   * The most items a page of a list holds, whatever the request asks: a server that gives 2 a page
   * when asked for 100 (init and probe must walk it, not take the first page for the list).
   */
  pageCap?: number;
}

export interface TranslatedQuery {
  search: URLSearchParams;
  position?: string;
  /** The dialect's filters of this listing (no page position, no page size): what an `alone` token carries. */
  filters: string;
}

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  date: 'a date (YYYY-MM-DD)',
  rfc3339: 'an RFC 3339 time',
  epoch_s: 'a count of seconds',
  epoch_ms: 'a count of milliseconds',
  epoch_min: 'a count of minutes',
};

export function refuse(status: number, code: string, message: string, path?: string, why?: string): Answer {
  const details = path === undefined ? {} : { details: [{ path, message: why ?? message }] };
  return { status, body: { error: { code, message, ...details } } };
}

/** An `alone` token: the simulator's own cursor and the filters it was given for (opaque to a client). */
export function wrapToken(cursor: string, filters: string): string {
  return Buffer.from(JSON.stringify([cursor, filters])).toString('base64url');
}

function unwrapToken(token: string): [string, string] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    return Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string'
      ? [value[0], value[1]]
      : undefined;
  } catch {
    return undefined;
  }
}

export function pagingOf(contract: CompiledContract) {
  const spec = (endpoint: EndpointName): PaginationSpec | undefined =>
    isListEndpoint(endpoint)
      ? mergePagination(contract.source.pagination, contract.source.endpoints?.[endpoint]?.pagination)
      : endpoint === 'bookKeywords' && contract.pagination.bookKeywords !== undefined
        ? mergePagination(contract.source.pagination, contract.source.endpoints?.bookKeywords?.pagination)
        : undefined;
  const compiled = (endpoint: EndpointName) =>
    isListEndpoint(endpoint)
      ? contract.pagination[endpoint]
      : endpoint === 'bookKeywords'
        ? contract.pagination.bookKeywords
        : undefined;
  return { spec, compiled };
}

/** The dialect's query → the simulator's (the assumed contract's names and value formats). */
export function queryTranslator(contract: CompiledContract, options: SimDialectOptions = {}) {
  const paging = pagingOf(contract);

  /** A token sent alone is the first page's filters again, with the simulator's cursor. */
  function restoreAlone(endpoint: EndpointName, url: URL): URL | Answer {
    const spec = paging.spec(endpoint);
    const param = spec?.cursor?.param;
    if (spec?.cursor?.alone !== true || param === undefined) return url;
    const token = url.searchParams.get(param);
    if (token === null) return url;
    const limitParam = paging.compiled(endpoint)?.limitParam;
    const others = [...new Set(url.searchParams.keys())].filter((n) => n !== param && n !== limitParam);
    if (others.length > 0)
      return refuse(
        400,
        'invalid_request',
        `${param} is sent alone: leave out ${others.join(', ')} (the token carries the filters)`,
        others[0],
        `not allowed with ${param}`,
      );
    const inner = unwrapToken(token);
    if (inner === undefined)
      return refuse(400, 'invalid_request', `${param} is not a token this API gave`, param, 'unknown token');
    const restored = new URL(`${url.pathname}?${inner[1]}`, url.origin);
    restored.searchParams.set('cursor', inner[0]);
    const limit = limitParam === undefined ? null : url.searchParams.get(limitParam);
    if (limitParam !== undefined && limit !== null) restored.searchParams.set(limitParam, limit);
    return restored;
  }

  return function translateQuery(endpoint: EndpointName, sent: URL): TranslatedQuery | Answer {
    const url = restoreAlone(endpoint, sent);
    if (!(url instanceof URL)) return url;
    const search = new URLSearchParams();
    const compiled = paging.compiled(endpoint);
    const spec = paging.spec(endpoint);
    const query = contract.queries[endpoint];
    const pageParam = spec?.page?.param ?? spec?.offset?.param;
    // Next-page URLs the simulator writes, and restored alone tokens, carry its own `cursor`.
    const cursorParam = spec?.cursor?.alone === true ? 'cursor' : (spec?.cursor?.param ?? 'cursor');
    const fixed = new Map(query.fixed);
    for (const [name, value] of fixed) {
      if (url.searchParams.get(name) !== value)
        return refuse(
          400,
          'invalid_request',
          `the parameter ${name}=${value} is required`,
          name,
          `required: ${value}`,
        );
    }
    let position: string | undefined;
    const filters = new URLSearchParams();
    const seen = new Set<string>();
    for (const [name, value] of url.searchParams) {
      if (fixed.has(name)) {
        filters.append(name, value);
        continue;
      }
      if (compiled !== undefined && name === compiled.limitParam) search.append('limit', value);
      else if (name === pageParam) position = value;
      else if (compiled !== undefined && name === cursorParam) search.append('cursor', value);
      else {
        const param = query.incoming.get(name);
        // An API refuses a parameter it does not know, and says which: a dialect's names are its own.
        if (param === undefined)
          return refuse(400, 'invalid_request', `unknown parameter ${name}`, name, 'unknown parameter');
        const again = seen.has(name);
        seen.add(name);
        // An API that joins values with commas refuses the parameter repeated, or reads only the first.
        if (param.comma && again) {
          if (options.repeatedValues === 'first') continue;
          return refuse(
            400,
            'invalid_request',
            `${name} is sent once, its values comma-joined`,
            name,
            'send it once, comma-joined',
          );
        }
        filters.append(name, value);
        const ours = DEFAULT_CONTRACT.params[param.filter];
        for (const one of param.comma ? value.split(',') : [value]) {
          if (!param.accepts(one))
            return refuse(
              400,
              'invalid_request',
              `${name} must be ${FORMAT_WORDS[param.format ?? 'date']}, got "${one}"`,
              name,
              `expected ${FORMAT_WORDS[param.format ?? 'date']}`,
            );
          let v = param.read(one);
          if (param.filter === 'marketplace') v = contract.enumIn.marketplace(v);
          if (param.filter === 'platform') v = contract.enumIn.platform(v);
          // The simulator takes dates for sales and timestamps elsewhere.
          if (param.filter === 'from' || param.filter === 'to' || param.filter === 'since') {
            if (endpoint === 'sales') v = v.slice(0, 10);
            else if (/^\d{4}-\d{2}-\d{2}$/.test(v)) v = `${v}T00:00:00Z`;
          }
          search.append(ours, v);
        }
      }
    }
    const out: TranslatedQuery = { search, filters: filters.toString() };
    if (position !== undefined) out.position = position;
    return out;
  };
}
