/**
 * The contract read in reverse: how the simulator serves its world in a dialect (`sim --contract`).
 * Answers are built in the assumed contract's shape and written out field by field through the same
 * compiled fields the client reads with, so a dialect the client can read is one the simulator can
 * speak. Structurally the simulator's SimDialect (src/sim/dialect.ts); neither side imports the other.
 */
import {
  type CompiledContract,
  compileSetter,
  type EndpointName,
  isListEndpoint,
} from '../../api/tooling.ts';
import { type Answer, pagingOf, queryTranslator, type SimDialectOptions, wrapToken } from './serve-query.ts';
import { salesRows } from './serve-sales.ts';
import { bodySignals, headerSignals } from './serve-signals.ts';

/** The simulator pages internally by at most this many items (its own MAX_LIMIT). */
const SIM_PAGE = 100;

function place(path: string, value: unknown): Record<string, unknown> {
  if (path === '') return value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  compileSetter(path)(out, value);
  return out;
}

export function createSimDialect(contract: CompiledContract, options: SimDialectOptions = {}) {
  const { nodes, roots } = contract;
  const canonicalItems = salesRows(contract, options);
  const cap = (size: number) => Math.min(size, options.pageCap ?? size);
  const codesOut = new Map(
    Object.entries(contract.source.errors?.codes ?? {}).map(([theirs, ours]) => [ours, theirs]),
  );
  const { spec: pagingSpec, compiled: compiledPaging } = pagingOf(contract);
  const translateQuery = queryTranslator(contract, options);

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

  /** One page (numbers or offsets) of `all`, with the totals the dialect states. */
  function cut(endpoint: EndpointName, all: unknown[], position: string | undefined, size: number) {
    const paging = compiledPaging(endpoint);
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
    nowMs: number,
  ): Answer {
    const paging = contract.pagination[endpoint];
    const spec = pagingSpec(endpoint) ?? {};
    const translated = translateQuery(endpoint, url);
    if ('status' in translated) return translated;
    const { search, position, filters } = translated;
    const write = (items: unknown[]) =>
      canonicalItems(endpoint, items, nowMs).map((item) => nodes[endpoint].write(item));
    const headers: Record<string, string> = {};
    if (paging.style === 'page' || paging.style === 'offset') {
      const size = cap(Number(search.get('limit') ?? paging.maxLimit));
      search.delete('limit');
      const all = walk(run, search);
      if (!Array.isArray(all)) return all;
      const page = cut(endpoint, all, position, size);
      return { status: 200, body: page.totals(place(roots[endpoint], write(page.items))) };
    }
    if (options.pageCap !== undefined)
      search.set('limit', String(cap(Number(search.get('limit') ?? options.pageCap))));
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
    if (spec.cursor !== undefined) {
      // A token sent alone must carry the filters it was given for (the simulator's cursor is bound to them).
      const token =
        spec.cursor.alone === true && page.next_cursor !== null
          ? wrapToken(page.next_cursor, filters)
          : page.next_cursor;
      compileSetter(spec.cursor.next)(body, token);
    }
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
    const size = cap(Number(search.get('limit') ?? paging?.maxLimit ?? SIM_PAGE));
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
    serve(
      endpoint: EndpointName,
      url: URL,
      origin: string,
      run: (s: URLSearchParams) => Answer,
      nowMs = Date.now(),
    ): Answer {
      if (isListEndpoint(endpoint)) return serveList(endpoint, url, origin, run, nowMs);
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
      // A dialect that tells the month's 429 by a field or a header sends both 429s under the minute's code.
      const when = contract.source.errors?.monthWhen;
      const month = when !== undefined && inner.code === 'quota_exceeded';
      const ours = month ? 'rate_limited' : inner.code;
      const code = typeof ours === 'string' ? (codesOut.get(ours) ?? ours) : ours;
      const out = place(roots.error, nodes.error.write({ ...inner, code }));
      if (month && when.path !== undefined) compileSetter(when.path)(out, when.equals);
      return out;
    },
    /** Headers of an error answer from its body in the assumed contract: the month's 429 told by a header. */
    errorHeaders(body: unknown): Record<string, string> {
      const when = contract.source.errors?.monthWhen;
      const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
      return when?.header !== undefined && code === 'quota_exceeded'
        ? { [when.header]: String(when.equals) }
        : {};
    },
    headers: signalsOut,
    /** Signals the dialect puts in the body (quota, request id) moved there from the headers. */
    finish: bodySignals(contract),
  };
}

export type ContractSimDialect = ReturnType<typeof createSimDialect>;
