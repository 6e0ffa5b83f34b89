/**
 * The typed client of the Publishing Analytics API: one method per endpoint, lists as lazy
 * async iterables of pages. Every outbound request passes `beforeRequest` (the budget) first.
 */
import { Agent, type Dispatcher } from 'undici';
import { checkKeyUrl } from '../util/key-url.ts';
import { type BodyReader, type CompiledContract, defaultContract } from './contract/compile.ts';
import type { CompiledPagination } from './contract/paging.ts';
import { InvalidRequestError } from './errors.ts';
import { keywordsOfPage, mergeKeywordPages } from './keyword-pages.ts';
import { listPageReader, pathOfNextUrl } from './list-pages.ts';
import { offTopicBy, outsideDates } from './off-topic.ts';
import { type OffTopic, paginate } from './pagination.ts';
import {
  type ArcInviteRequest,
  type ArcInviteResult,
  type ArcReview,
  type Book,
  type BookKeywords,
  isAsin,
  type KeywordSearchResult,
  type Marketplace,
  type Platform,
  type RankingSeries,
  type SalesRecord,
} from './schemas.ts';
import { type RequestSpec, send, type TransportConfig } from './transport.ts';
import type { ApiResponse, BeforeRequest, CallOptions, Page, ResponseInfo } from './types.ts';

export interface AnalyticsClientOptions {
  /** e.g. `https://api.example.com` or with a path prefix; `/v1/...` is appended. */
  baseUrl: string;
  apiKey: string;
  /** The workspace's `allowInsecure`: plain http off this machine only with it (util/key-url.ts). */
  allowInsecure?: boolean;
  /** Sent as `shelfwatch/<version>` unless `userAgent` is given. */
  version?: string;
  userAgent?: string;
  /** undici's own defaults are 300 s each: far too long for a poller. */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /** Defaults to a private Agent that `close()` closes; a dispatcher passed in is left to its owner. */
  dispatcher?: Dispatcher;
  /** Awaited before every outbound request (each page, each retry); a throw aborts the call unchanged.
   * What it hands back is called once that request has ended. */
  beforeRequest?: BeforeRequest;
  /** Called for every HTTP response, error statuses included. Should not throw. */
  onResponse?: (res: ResponseInfo) => void;
  /** Largest answer read (default 32 MiB); a larger one is an error, never read to the end. */
  maxBodyBytes?: number;
  /** Base delay of the one quick retry of a transient GET (plus up to as much jitter); 0 in tests. */
  transientRetryDelayMs?: number;
  /** The engine's clock: Retry-After dates and quota resets are turned into waits against it. */
  now?: () => number;
  /** Where everything is in the API's answers (api.contract); the assumed contract when absent. */
  contract?: CompiledContract;
}

export const DEFAULT_TIMEOUTS = { connectMs: 5_000, headersMs: 15_000, bodyMs: 30_000 } as const;
export const DEFAULT_TRANSIENT_RETRY_DELAY_MS = 250;
/** 1,000 keywords or a page of 100 long reviews is well under 1 MiB; 32 leaves room without risk. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

type MarketplaceOption = CallOptions & { marketplace?: Marketplace };
type ListParams = { limit?: number; cursor?: string };

export interface AnalyticsClient {
  getBook(asin: string, opts?: MarketplaceOption): Promise<ApiResponse<Book>>;
  getBookKeywords(asin: string, opts?: MarketplaceOption): Promise<ApiResponse<BookKeywords>>;
  searchKeywords(
    params: { q: string; marketplace?: Marketplace } & ListParams,
    opts?: CallOptions,
  ): AsyncIterable<Page<KeywordSearchResult>>;
  getRankings(
    params: {
      asin?: string[];
      keyword?: string[];
      /** Not in the contract's list of parameters; the simulator and the service default to US. */
      marketplace?: Marketplace;
      from?: string;
      to?: string;
    } & ListParams,
    opts?: CallOptions,
  ): AsyncIterable<Page<RankingSeries>>;
  /** Never retried by the client; repeating it with the same `idempotencyKey` is safe. */
  inviteArcReaders(
    body: ArcInviteRequest,
    opts: CallOptions & { idempotencyKey: string },
  ): Promise<ApiResponse<ArcInviteResult>>;
  listArcReviews(
    params: { campaignId?: string; platform?: Platform; since?: string } & ListParams,
    opts?: CallOptions,
  ): AsyncIterable<Page<ArcReview>>;
  listSales(
    params: { asin?: string; marketplace?: Marketplace; from: string; to: string } & ListParams,
    opts?: CallOptions,
  ): AsyncIterable<Page<SalesRecord>>;
  /**
   * A whole list with no filter, each page's items read by `reader` instead of the contract's,
   * walked by the contract's pagination: `init` discovers the account's ASINs and campaign ids this
   * way before the contract can read every field of an item.
   */
  readList<T>(
    list: 'rankings' | 'reviews',
    reader: BodyReader<T[]>,
    params: ListParams,
    opts?: CallOptions,
  ): AsyncIterable<Page<T>>;
  /** Closes the client's own Agent (not a dispatcher passed in). */
  close(): Promise<void>;
}

type QueryValue = string | number | undefined;

/** The endpoint's query (already in the API's names and formats), then the page's own parameters. */
function withQuery(
  path: string,
  entries: readonly [string, string][],
  paging: Record<string, QueryValue> = {},
): string {
  const search = new URLSearchParams();
  for (const [name, value] of entries) search.append(name, value);
  for (const [name, value] of Object.entries(paging))
    if (value !== undefined) search.append(name, String(value));
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The contract answers a malformed ASIN with 400: refuse it here instead of spending a request. */
function checkAsins(endpoint: string, asins: readonly string[]): void {
  for (const asin of asins) {
    if (!isAsin(asin)) {
      throw new InvalidRequestError(
        `${endpoint}: "${asin.slice(0, 40)}" is not an ASIN (10 characters A-Z or 0-9); not sent`,
        { endpoint, code: 'invalid_request' },
      );
    }
  }
}

function parseBaseUrl(baseUrl: string, allowInsecure: boolean): { origin: string; basePath: string } {
  const verdict = checkKeyUrl(baseUrl, { allowInsecure });
  if (!verdict.ok) throw new TypeError(`createAnalyticsClient: ${verdict.message} (${verdict.hint})`);
  return { origin: verdict.origin, basePath: verdict.basePath };
}

export function createAnalyticsClient(options: AnalyticsClientOptions): AnalyticsClient {
  if (options.apiKey.trim() === '') throw new TypeError('createAnalyticsClient: apiKey is empty');
  const { origin, basePath } = parseBaseUrl(options.baseUrl, options.allowInsecure === true);
  const timeouts = {
    connectMs: options.timeouts?.connectMs ?? DEFAULT_TIMEOUTS.connectMs,
    headersMs: options.timeouts?.headersMs ?? DEFAULT_TIMEOUTS.headersMs,
    bodyMs: options.timeouts?.bodyMs ?? DEFAULT_TIMEOUTS.bodyMs,
  };
  for (const [name, ms] of Object.entries(timeouts)) {
    // undici would only complain at the first request; a bad config should fail at start.
    if (!Number.isInteger(ms) || ms <= 0) {
      throw new TypeError(
        `createAnalyticsClient: timeouts.${name} must be a whole number of ms > 0, got ${ms}`,
      );
    }
  }
  const contract = options.contract ?? defaultContract();
  const queries = contract.queries;
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
    });
  const config: TransportConfig = {
    origin,
    basePath,
    apiKey: options.apiKey,
    userAgent: options.userAgent ?? `shelfwatch/${options.version ?? 'dev'}`,
    dispatcher,
    headersTimeoutMs: timeouts.headersMs,
    bodyTimeoutMs: timeouts.bodyMs,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    retryDelayMs: options.transientRetryDelayMs ?? DEFAULT_TRANSIENT_RETRY_DELAY_MS,
    now: options.now ?? Date.now,
    contract,
    beforeRequest: options.beforeRequest,
    onResponse: options.onResponse,
  };
  let closed: Promise<void> | undefined;

  function get<T>(
    endpoint: string,
    path: string,
    read: RequestSpec<T>['read'],
    signal: AbortSignal | undefined,
    page = 0,
  ) {
    return send(config, { method: 'GET', endpoint, path, read, retryTransient: true, page, signal });
  }

  const whole =
    <T>(reader: BodyReader<T>): RequestSpec<T>['read'] =>
    (body) =>
      reader(body);

  function list<T>(
    paging: CompiledPagination,
    endpoint: string,
    path: string,
    query: readonly [string, string][],
    reader: BodyReader<T[]>,
    params: ListParams,
    opts: CallOptions | undefined,
    asins: readonly string[] = [],
    offTopic?: OffTopic<T>,
  ): AsyncIterable<Page<T>> {
    // Page numbers and offsets need the page size to know where the next page starts.
    const asked =
      paging.style === 'page' || paging.style === 'offset' ? (params.limit ?? paging.maxLimit) : params.limit;
    // The API's own page-size limit: asking for more would be a 400.
    const limit = asked === undefined ? undefined : Math.min(asked, paging.maxLimit);
    return (async function* () {
      checkAsins(endpoint, asins);
      yield* paginate<T>(
        endpoint,
        (position, page) => {
          const target =
            paging.positionIsUrl && position !== null
              ? pathOfNextUrl(endpoint, position, origin, basePath)
              : withQuery(
                  path,
                  paging.tokenAlone && position !== null ? [] : query,
                  paging.query(position, limit),
                );
          const read = listPageReader(paging, reader, position, limit);
          return get(endpoint, target, read, opts?.signal, page);
        },
        params.cursor ?? null,
        offTopic,
        paging.emptyPageEnds,
      );
    })();
  }

  const market = (m: Marketplace | undefined) =>
    m === undefined ? undefined : contract.enumOut.marketplace(m);

  return {
    async getBook(asin, opts) {
      const endpoint = 'GET /v1/books/{asin}';
      checkAsins(endpoint, [asin]);
      const path = withQuery(
        `/v1/books/${asin}`,
        queries.book.build({ marketplace: market(opts?.marketplace) }),
      );
      return get(endpoint, path, whole(contract.book), opts?.signal);
    },

    async getBookKeywords(asin, opts) {
      const endpoint = 'GET /v1/books/{asin}/keywords';
      checkAsins(endpoint, [asin]);
      const query = queries.bookKeywords.build({ marketplace: market(opts?.marketplace) });
      const path = `/v1/books/${asin}/keywords`;
      const paging = contract.pagination.bookKeywords;
      if (paging === undefined)
        return get(endpoint, withQuery(path, query), whole(contract.bookKeywords), opts?.signal);
      // Keywords in pages: every page read, merged, and only then held to the limits (≤ 1,000 in all).
      const pageReader = keywordsOfPage(contract.bookKeywords);
      const pages = list(paging, endpoint, path, query, pageReader.reader, {}, opts);
      return mergeKeywordPages(endpoint, pages, pageReader);
    },

    searchKeywords(params, opts) {
      const query = queries.keywordSearch.build({ query: params.q, marketplace: market(params.marketplace) });
      const endpoint = 'GET /v1/keywords/search';
      const paging = contract.pagination.keywordSearch;
      return list(paging, endpoint, '/v1/keywords/search', query, contract.keywordSearch, params, opts);
    },

    getRankings(params, opts) {
      const query = queries.rankings.build({
        asin: params.asin,
        keyword: params.keyword,
        marketplace: market(params.marketplace),
        from: params.from,
        to: params.to,
      });
      const endpoint = 'GET /v1/rankings';
      return list(
        contract.pagination.rankings,
        endpoint,
        '/v1/rankings',
        query,
        contract.rankings,
        params,
        opts,
        params.asin ?? [],
        offTopicBy<RankingSeries>([
          ['ASIN', params.asin, (s) => s.asin],
          ['keyword', params.keyword, (s) => s.keyword],
        ]),
      );
    },

    async inviteArcReaders(body, opts) {
      const endpoint = 'POST /v1/arc/invites';
      const key = opts.idempotencyKey;
      // Without a key a repeated POST could invite readers twice; with a non-printable one undici throws.
      if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
        throw new InvalidRequestError(
          `${endpoint}: idempotencyKey must be 1-255 printable ASCII characters; not sent`,
          {
            endpoint,
            code: 'invalid_idempotency_key',
          },
        );
      }
      return send(config, {
        method: 'POST',
        endpoint,
        path: '/v1/arc/invites',
        body: JSON.stringify(contract.inviteRequest(body)),
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        read: whole(contract.invites),
        retryTransient: false,
        page: 0,
        signal: opts.signal,
      });
    },

    listArcReviews(params, opts) {
      const query = queries.reviews.build({
        campaign: params.campaignId,
        platform: params.platform === undefined ? undefined : contract.enumOut.platform(params.platform),
        since: params.since,
      });
      const about = offTopicBy<ArcReview>([
        ['campaign', params.campaignId, (r) => r.campaign_id],
        ['platform', params.platform, (r) => r.platform],
      ]);
      const endpoint = 'GET /v1/arc/reviews';
      const paging = contract.pagination.reviews;
      return list(paging, endpoint, '/v1/arc/reviews', query, contract.reviews, params, opts, [], about);
    },

    listSales(params, opts) {
      const query = queries.sales.build({
        asin: params.asin,
        marketplace: market(params.marketplace),
        from: params.from,
        to: params.to,
      });
      const asins = params.asin === undefined ? [] : [params.asin];
      const about = outsideDates<SalesRecord>(
        params.from,
        params.to,
        (r) => r.date,
        offTopicBy([
          ['ASIN', params.asin, (r) => r.asin],
          ['marketplace', params.marketplace, (r) => r.marketplace],
        ]),
      );
      const paging = contract.pagination.sales;
      return list(paging, 'GET /v1/sales', '/v1/sales', query, contract.sales, params, opts, asins, about);
    },

    readList(name, reader, params, opts) {
      const path = name === 'rankings' ? '/v1/rankings' : '/v1/arc/reviews';
      const fixed = queries[name].build({});
      return list(contract.pagination[name], `GET ${path}`, path, fixed, reader, params, opts);
    },

    close() {
      closed ??= ownsDispatcher ? dispatcher.close() : Promise.resolve();
      return closed;
    },
  };
}
