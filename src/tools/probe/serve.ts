/**
 * The contract read in reverse: how the simulator serves its world in a dialect (`sim --contract`).
 * Answers are built in the assumed contract's shape and written out field by field through the same
 * compiled fields the client reads with, so a dialect the client can read is one the simulator can
 * speak. Structurally the simulator's SimDialect (src/sim/dialect.ts); neither side imports the other.
 */
import {
  type CompiledContract,
  compileSetter,
  DEFAULT_CONTRACT,
  type EndpointName,
  isListEndpoint,
  mergePagination,
  type PaginationSpec,
} from '../../api/tooling.ts';
import { DAY_MS } from '../../util/time-units.ts';
import { bodySignals, headerSignals } from './serve-signals.ts';

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  date: 'a date (YYYY-MM-DD)',
  rfc3339: 'an RFC 3339 time',
  epoch_s: 'a count of seconds',
  epoch_ms: 'a count of milliseconds',
  epoch_min: 'a count of minutes',
};

/** The simulator pages internally by at most this many items (its own MAX_LIMIT). */
const SIM_PAGE = 100;
/** A sales day stays provisional for 14 days (today and the 13 before). */
const PROVISIONAL_MS = 14 * DAY_MS;

function place(path: string, value: unknown): Record<string, unknown> {
  if (path === '') return value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  compileSetter(path)(out, value);
  return out;
}

function refuse(status: number, code: string, message: string, path?: string, why?: string): Answer {
  const details = path === undefined ? {} : { details: [{ path, message: why ?? message }] };
  return { status, body: { error: { code, message, ...details } } };
}

export function createSimDialect(contract: CompiledContract) {
  const { nodes, roots } = contract;
  const codesOut = new Map(
    Object.entries(contract.source.errors?.codes ?? {}).map(([theirs, ours]) => [ours, theirs]),
  );
  const pagingSpec = (endpoint: EndpointName): PaginationSpec | undefined =>
    isListEndpoint(endpoint)
      ? mergePagination(contract.source.pagination, contract.source.endpoints?.[endpoint]?.pagination)
      : endpoint === 'bookKeywords' && contract.pagination.bookKeywords !== undefined
        ? mergePagination(contract.source.pagination, contract.source.endpoints?.bookKeywords?.pagination)
        : undefined;
  const pagingOf = (endpoint: EndpointName) =>
    isListEndpoint(endpoint)
      ? contract.pagination[endpoint]
      : endpoint === 'bookKeywords'
        ? contract.pagination.bookKeywords
        : undefined;

  /** The dialect's query → the simulator's (the assumed contract's names and value formats). */
  function translateQuery(
    endpoint: EndpointName,
    url: URL,
  ): { search: URLSearchParams; position?: string } | Answer {
    const search = new URLSearchParams();
    const paging = pagingOf(endpoint);
    const spec = pagingSpec(endpoint);
    const query = contract.queries[endpoint];
    const pageParam = spec?.page?.param ?? spec?.offset?.param;
    // Next-page URLs the simulator writes carry its own `cursor`.
    const cursorParam = spec?.cursor?.param ?? 'cursor';
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
    for (const [name, value] of url.searchParams) {
      if (fixed.has(name)) continue;
      if (paging !== undefined && name === paging.limitParam) search.append('limit', value);
      else if (name === pageParam) position = value;
      else if (paging !== undefined && name === cursorParam) search.append('cursor', value);
      else {
        const param = query.incoming.get(name);
        // An API refuses a parameter it does not know, and says which: a dialect's names are its own.
        if (param === undefined)
          return refuse(400, 'invalid_request', `unknown parameter ${name}`, name, 'unknown parameter');
        // An API that joins values with commas refuses the parameter repeated (some take only one).
        if (param.comma && url.searchParams.getAll(name).length > 1)
          return refuse(
            400,
            'invalid_request',
            `${name} is sent once, its values comma-joined`,
            name,
            'send it once, comma-joined',
          );
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
    return position === undefined ? { search } : { search, position };
  }

  /** Pages or offsets: the listing is walked whole through the simulator's own cursors, then cut. */
  function walk(run: (search: URLSearchParams) => Answer, search: URLSearchParams): Answer | unknown[] {
    const all: unknown[] = [];
    let cursor: string | null = null;
    do {
      const step = new URLSearchParams(search);
      step.set('limit', String(SIM_PAGE));
      if (cursor !== null) step.set('cursor', cursor);
      const answer = run(step);
      if (answer.status >= 300) return answer;
      const page = answer.body as { data: unknown[]; next_cursor: string | null };
      all.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return all;
  }

  /** Sales rows get their final/provisional state, which the assumed contract does not send. */
  function canonicalItems(endpoint: EndpointName, items: unknown[]): unknown[] {
    if (endpoint !== 'sales') return items;
    const cutoff = new Date(Date.now() - PROVISIONAL_MS).toISOString().slice(0, 10);
    return items.map((row) => ({ ...(row as object), final: (row as { date: string }).date < cutoff }));
  }

  /** One page (numbers or offsets) of `all`, with the totals the dialect states. */
  function cut(endpoint: EndpointName, all: unknown[], position: string | undefined, size: number) {
    const paging = pagingOf(endpoint);
    const spec = pagingSpec(endpoint);
    const first = spec?.page?.firstPage ?? 1;
    const start =
      paging?.style === 'page' ? (Number(position ?? first) - first) * size : Number(position ?? 0);
    const totals = (body: Record<string, unknown>) => {
      if (spec?.page?.totalPages !== undefined)
        compileSetter(spec.page.totalPages)(body, Math.max(1, Math.ceil(all.length / size)));
      if (spec?.page?.totalItems !== undefined) compileSetter(spec.page.totalItems)(body, all.length);
      if (spec?.offset?.total !== undefined) compileSetter(spec.offset.total)(body, all.length);
      return body;
    };
    return { items: all.slice(start, start + size), totals };
  }

  function serveList(
    endpoint: EndpointName & ('keywordSearch' | 'rankings' | 'reviews' | 'sales'),
    url: URL,
    origin: string,
    run: (s: URLSearchParams) => Answer,
  ): Answer {
    const paging = contract.pagination[endpoint];
    const spec = pagingSpec(endpoint) ?? {};
    const translated = translateQuery(endpoint, url);
    if ('status' in translated) return translated;
    const { search, position } = translated;
    const write = (items: unknown[]) =>
      canonicalItems(endpoint, items).map((item) => nodes[endpoint].write(item));
    const headers: Record<string, string> = {};
    if (paging.style === 'page' || paging.style === 'offset') {
      const size = Number(search.get('limit') ?? paging.maxLimit);
      search.delete('limit');
      const all = walk(run, search);
      if (!Array.isArray(all)) return all;
      const page = cut(endpoint, all, position, size);
      return { status: 200, body: page.totals(place(roots[endpoint], write(page.items))) };
    }
    const answer = run(search);
    if (answer.status >= 300) return answer;
    const page = answer.body as { data: unknown[]; next_cursor: string | null };
    const body = place(roots[endpoint], write(page.data));
    let nextUrl: string | null = null;
    if (page.next_cursor !== null) {
      const next = new URL(url.pathname + url.search, origin);
      next.searchParams.set('cursor', page.next_cursor);
      nextUrl = next.href;
    }
    if (spec.cursor !== undefined) compileSetter(spec.cursor.next)(body, page.next_cursor);
    if (spec.nextUrl !== undefined) compileSetter(spec.nextUrl.next)(body, nextUrl);
    if (spec.linkHeader !== undefined && nextUrl !== null) {
      headers[spec.linkHeader.header ?? 'Link'] = `<${nextUrl}>; rel="next"`;
    }
    return { status: 200, body, headers };
  }

  /** Book keywords in pages (numbers or offsets): the whole answer cut to the page asked for. */
  function serveKeywordPages(url: URL, run: (s: URLSearchParams) => Answer): Answer {
    const paging = contract.pagination.bookKeywords;
    const translated = translateQuery('bookKeywords', url);
    if ('status' in translated) return translated;
    const { search, position } = translated;
    const size = Number(search.get('limit') ?? paging?.maxLimit ?? SIM_PAGE);
    search.delete('limit');
    const answer = run(search);
    if (answer.status >= 300) return answer;
    const whole = answer.body as { asin: string; data: unknown[] };
    const page = cut('bookKeywords', whole.data, position, size);
    const body = place(roots.bookKeywords, nodes.bookKeywords.write({ ...whole, data: page.items }));
    return { status: 200, body: page.totals(body) };
  }

  const signalsOut = headerSignals(contract);
  return {
    serve(endpoint: EndpointName, url: URL, origin: string, run: (s: URLSearchParams) => Answer): Answer {
      if (isListEndpoint(endpoint)) return serveList(endpoint, url, origin, run);
      if (endpoint === 'bookKeywords' && contract.pagination.bookKeywords !== undefined)
        return serveKeywordPages(url, run);
      const translated = translateQuery(endpoint, url);
      if ('status' in translated) return translated;
      const answer = run(translated.search);
      if (answer.status >= 300) return answer;
      return { ...answer, body: place(roots[endpoint], nodes[endpoint].write(answer.body)) };
    },
    /** The dialect's request body → the assumed contract's (the invite body's names and nesting). */
    requestBody(endpoint: EndpointName, text: string): string {
      if (endpoint !== 'invites' || text === '') return text;
      try {
        return JSON.stringify(contract.inviteRequestIn(JSON.parse(text)));
      } catch {
        return text;
      }
    },
    errorBody(body: unknown): unknown {
      const inner = (body as { error?: Record<string, unknown> } | null)?.error;
      if (inner === undefined) return body;
      // A dialect that tells the month's 429 by a field sends both 429s under the minute's code.
      const when = contract.source.errors?.monthWhen;
      const month = when !== undefined && inner.code === 'quota_exceeded';
      const ours = month ? 'rate_limited' : inner.code;
      const code = typeof ours === 'string' ? (codesOut.get(ours) ?? ours) : ours;
      const out = place(roots.error, nodes.error.write({ ...inner, code }));
      if (month) compileSetter(when.path)(out, when.equals);
      return out;
    },
    headers: signalsOut,
    /** Signals the dialect puts in the body (quota, request id) moved there from the headers. */
    finish: bodySignals(contract),
  };
}

export type ContractSimDialect = ReturnType<typeof createSimDialect>;
