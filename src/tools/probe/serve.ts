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
  type FilterParam,
  isListEndpoint,
  type ListEndpointName,
  mergePagination,
  readEnum,
} from '../../api/tooling.ts';

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The simulator pages internally by at most this many items (its own MAX_LIMIT). */
const SIM_PAGE = 100;

function place(path: string, value: unknown): Record<string, unknown> {
  if (path === '') return value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  compileSetter(path)(out, value);
  return out;
}

export function createSimDialect(contract: CompiledContract) {
  const { nodes, roots, params } = contract;
  // The dialect's query parameter name → the simulator's (the default contract's) name.
  const incoming = new Map<string, string>();
  for (const [filter, name] of Object.entries(params)) {
    incoming.set(name, DEFAULT_CONTRACT.params[filter as FilterParam]);
  }
  const enums = contract.source.enums ?? {};
  const marketplaceIn = readEnum(enums.marketplace ?? {});
  const platformIn = readEnum(enums.platform ?? {});
  const codesOut = new Map(
    Object.entries(contract.source.errors?.codes ?? {}).map(([theirs, ours]) => [ours, theirs]),
  );
  const rl = contract.source.rateLimit ?? {};
  const rename: [string, string | null | undefined][] = [
    ['X-RateLimit-Limit', rl.limit],
    ['X-RateLimit-Remaining', rl.remaining],
    ['X-Quota-Limit', rl.quotaLimit],
    ['X-Quota-Remaining', rl.quotaRemaining],
    ['Retry-After', rl.retryAfter],
    ['X-Request-Id', contract.source.requestIdHeader],
  ];

  const pagingSpec = (endpoint: ListEndpointName) =>
    mergePagination(contract.source.pagination, contract.source.endpoints?.[endpoint]?.pagination);

  function translateQuery(endpoint: EndpointName, url: URL): { search: URLSearchParams; position?: string } {
    const search = new URLSearchParams();
    const paging = isListEndpoint(endpoint) ? contract.pagination[endpoint] : undefined;
    const spec = isListEndpoint(endpoint) ? pagingSpec(endpoint) : undefined;
    const pageParam = spec?.page?.param ?? spec?.offset?.param;
    // Next-page URLs the simulator writes carry its own `cursor`.
    const cursorParam = spec?.cursor?.param ?? 'cursor';
    let position: string | undefined;
    for (const [name, value] of url.searchParams) {
      if (paging !== undefined && name === paging.limitParam) search.append('limit', value);
      else if (name === pageParam) position = value;
      else if (paging !== undefined && name === cursorParam) search.append('cursor', value);
      else {
        const ours = incoming.get(name) ?? name;
        const mapped =
          ours === 'marketplace' ? marketplaceIn(value) : ours === 'platform' ? platformIn(value) : value;
        search.append(ours, typeof mapped === 'string' ? mapped : value);
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

  function serveList(
    endpoint: ListEndpointName,
    url: URL,
    origin: string,
    run: (s: URLSearchParams) => Answer,
  ): Answer {
    const paging = contract.pagination[endpoint];
    const spec = pagingSpec(endpoint);
    const { search, position } = translateQuery(endpoint, url);
    const write = (items: unknown[]) => items.map((item) => nodes[endpoint].write(item));
    const headers: Record<string, string> = {};
    if (paging.style === 'page' || paging.style === 'offset') {
      const size = Number(search.get('limit') ?? paging.maxLimit);
      search.delete('limit');
      const all = walk(run, search);
      if (!Array.isArray(all)) return all;
      const first = spec.page?.firstPage ?? 1;
      const start =
        paging.style === 'page' ? (Number(position ?? first) - first) * size : Number(position ?? 0);
      const body = place(roots[endpoint], write(all.slice(start, start + size)));
      if (spec.page?.totalPages !== undefined)
        compileSetter(spec.page.totalPages)(body, Math.ceil(all.length / size));
      if (spec.page?.totalItems !== undefined) compileSetter(spec.page.totalItems)(body, all.length);
      if (spec.offset?.total !== undefined) compileSetter(spec.offset.total)(body, all.length);
      return { status: 200, body };
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

  return {
    serve(endpoint: EndpointName, url: URL, origin: string, run: (s: URLSearchParams) => Answer): Answer {
      if (isListEndpoint(endpoint)) return serveList(endpoint, url, origin, run);
      const answer = run(translateQuery(endpoint, url).search);
      if (answer.status >= 300) return answer;
      return { ...answer, body: place(roots[endpoint], nodes[endpoint].write(answer.body)) };
    },
    errorBody(body: unknown): unknown {
      const inner = (body as { error?: Record<string, unknown> } | null)?.error;
      if (inner === undefined) return body;
      const code = typeof inner.code === 'string' ? (codesOut.get(inner.code) ?? inner.code) : inner.code;
      return place(roots.error, nodes.error.write({ ...inner, code }));
    },
    headers(headers: Record<string, string>, nowMs: number): Record<string, string> {
      const out: Record<string, string> = { ...headers };
      for (const [ours, theirs] of rename) {
        const value = out[ours];
        delete out[ours];
        if (value !== undefined && theirs !== null && theirs !== undefined) out[theirs] = value;
      }
      const reset = out['X-RateLimit-Reset'];
      delete out['X-RateLimit-Reset'];
      if (reset !== undefined && rl.reset !== null && rl.reset !== undefined) {
        const epochS = Number(reset);
        const format = rl.reset.format;
        out[rl.reset.header] = String(
          format === 'epoch_ms'
            ? epochS * 1000
            : format === 'delta_s'
              ? Math.max(0, Math.ceil(epochS - nowMs / 1000))
              : epochS,
        );
      }
      return out;
    },
  };
}

export type ContractSimDialect = ReturnType<typeof createSimDialect>;
