/**
 * A merged contract compiled once into the functions the client runs per answer: readers (answer →
 * the canonical types of schemas.ts, validated by the same zod schemas and loops as ever), the
 * pagination, the error body and the rate-limit headers. An endpoint whose part of the contract is
 * the default's reads the answer as it is, exactly as before contracts existed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import {
  type ArcInviteRequest,
  type ArcInviteResult,
  type ArcReview,
  arcInviteResultSchema,
  arcReviewSchema,
  type Book,
  type BookKeywords,
  bookKeywordsValidator,
  bookSchema,
  type KeywordSearchResult,
  keywordSearchResultSchema,
  type RankingSeries,
  rankingSeriesSchema,
  type SalesRecord,
  salesReadSchema,
  salesRecordSchema,
} from '../schemas.ts';
import type { RateLimitInfo } from '../types.ts';
import type { BodyValidator } from '../validator.ts';
import {
  CATALOG,
  ENDPOINT_NAMES,
  type EndpointName,
  INVITE_REQUEST,
  LIST_ENDPOINTS,
  type ListEndpointName,
  type LogicalField,
} from './catalog.ts';
import { DEFAULT_CONTRACT } from './default.ts';
import { compileObject, type Enums, type ObjectNode } from './fields.ts';
import { FAIL } from './formats.ts';
import { mergePagination } from './merge.ts';
import { type CompiledPagination, compilePagination, styleOf } from './paging.ts';
import { compileGetter, compileSetter } from './path.ts';
import { type CompiledQuery, compileQuery, paramNames } from './query.ts';
import { type BodyReader, listReader, objectReader } from './readers.ts';
import type { ContractFile, Decision, FieldSpec, FilterParam } from './schema.ts';
import { compileSignals } from './signals.ts';

export type { BodyReader, ReadResult } from './readers.ts';

export interface ErrorFields {
  code?: string;
  message?: string;
  requestId?: string;
  details?: { path: string; message: string }[];
}

export interface CompiledContract {
  /** The merged contract this was compiled from. */
  readonly source: ContractFile;
  readonly book: BodyReader<Book>;
  readonly bookKeywords: BodyReader<BookKeywords>;
  readonly invites: BodyReader<ArcInviteResult>;
  /** Our invite request → the body the API takes (`endpoints.invites.request`). */
  readonly inviteRequest: (request: ArcInviteRequest) => unknown;
  /** The API's invite body → ours, for the simulator; FAIL-free: unreadable parts are left out. */
  readonly inviteRequestIn: (body: unknown) => unknown;
  readonly keywordSearch: BodyReader<KeywordSearchResult[]>;
  readonly rankings: BodyReader<RankingSeries[]>;
  readonly reviews: BodyReader<ArcReview[]>;
  readonly sales: BodyReader<SalesRecord[]>;
  /** Every list's pagination; book keywords only when the contract pages them (`endpoints.bookKeywords.pagination`). */
  readonly pagination: Readonly<Record<ListEndpointName, CompiledPagination>> & {
    readonly bookKeywords?: CompiledPagination;
  };
  /** The name of each filter (the contract's top level). */
  readonly params: Readonly<Record<FilterParam, string>>;
  /** Each endpoint's query: names, value formats, lists, fixed extras. */
  readonly queries: Readonly<Record<EndpointName, CompiledQuery>>;
  /** Our enum value → the API's, for query parameters. */
  readonly enumOut: { marketplace(v: string): string; platform(v: string): string };
  /** The API's enum value → ours (the simulator reading a query). */
  readonly enumIn: { marketplace(v: string): string; platform(v: string): string };
  readonly errorBody: (body: unknown) => ErrorFields | undefined;
  /** Our code for the API's error code. */
  readonly errorCode: (code: string) => string;
  /** A 429 whose body or headers say the month's quota is spent (`errors.monthWhen`). */
  readonly monthly: (headers: IncomingHttpHeaders, body: unknown) => boolean;
  readonly decision: (status: number) => Decision;
  /** Rate-limit and quota signals, from headers or (when `signalsInBody`) the parsed body. */
  readonly rateLimit: (headers: IncomingHttpHeaders, nowMs: number, body?: unknown) => RateLimitInfo;
  readonly requestId: (headers: IncomingHttpHeaders, body?: unknown) => string | undefined;
  /** True when a signal is in the body: the transport parses a body before reading the signals. */
  readonly signalsInBody: boolean;
  readonly retryAfterHeader: string | null;
  readonly requestIdHeader: string;
  /** The compiled objects, for the simulator's writer and for reports. */
  readonly nodes: Readonly<Record<EndpointName, ObjectNode>>;
  readonly roots: Readonly<Record<EndpointName, string>>;
}

/** A catalogue's fields at their canonical paths: the spec of a body sent as the assumed contract has it. */
function canonicalSpecs(catalog: Readonly<Record<string, LogicalField>>): Record<string, FieldSpec> {
  const out: Record<string, FieldSpec> = {};
  for (const [name, field] of Object.entries(catalog)) {
    out[name] =
      field.items === undefined
        ? field.canonical
        : { path: field.canonical, items: canonicalSpecs(field.items) };
  }
  return out;
}

function header(name: string | null | undefined): string | undefined {
  return name === null || name === undefined ? undefined : name.toLowerCase();
}

export function compileContract(contract: ContractFile): CompiledContract {
  const enums: Enums = {
    marketplace: contract.enums?.marketplace ?? {},
    platform: contract.enums?.platform ?? {},
    inviteStatus: contract.enums?.inviteStatus ?? {},
    salesStatus: contract.enums?.salesStatus ?? {},
  };
  const isDefault = (name: EndpointName) =>
    isDeepStrictEqual(contract.endpoints?.[name], DEFAULT_CONTRACT.endpoints[name]) &&
    isDeepStrictEqual(contract.enums, DEFAULT_CONTRACT.enums);
  const nodes = {} as Record<EndpointName, ObjectNode>;
  const roots = {} as Record<EndpointName, string>;
  for (const name of Object.keys(CATALOG) as EndpointName[]) {
    const spec = contract.endpoints?.[name];
    nodes[name] = compileObject(CATALOG[name], spec?.fields ?? {}, enums);
    roots[name] = spec?.root ?? spec?.items ?? '';
  }
  const object = <T>(name: EndpointName, validator: BodyValidator<T>) =>
    objectReader(name, nodes[name], roots[name], validator, isDefault(name));
  const list = <T>(name: ListEndpointName, item: z.ZodType<T>) =>
    listReader(name, nodes[name], roots[name], item, isDefault(name));

  const pagination = {} as Record<ListEndpointName, CompiledPagination> & {
    bookKeywords?: CompiledPagination;
  };
  for (const name of LIST_ENDPOINTS) {
    pagination[name] = compilePagination(
      mergePagination(contract.pagination, contract.endpoints?.[name]?.pagination),
    );
  }
  // Book keywords are one object; the contract may say its keyword list comes in pages.
  const keywordPages = contract.endpoints?.bookKeywords?.pagination;
  if (keywordPages !== undefined && styleOf(keywordPages).length > 0)
    pagination.bookKeywords = compilePagination(mergePagination(contract.pagination, keywordPages));
  const defaults = DEFAULT_CONTRACT.params as Readonly<Record<FilterParam, string>>;
  const queries = {} as Record<EndpointName, CompiledQuery>;
  for (const name of ENDPOINT_NAMES) {
    const spec = contract.endpoints?.[name];
    queries[name] = compileQuery(contract, spec?.params, spec?.fixedParams, defaults);
  }

  const request = contract.endpoints?.invites?.request;
  const requestNode = compileObject(
    INVITE_REQUEST,
    { ...canonicalSpecs(INVITE_REQUEST), ...request?.fields },
    enums,
  );
  const requestRoot = request?.root ?? '';
  const getRequestRoot = compileGetter(requestRoot);
  const setRequestRoot = requestRoot === '' ? undefined : compileSetter(requestRoot);
  const requestIsDefault = request === undefined;

  const errorNode = nodes.error;
  const getErrorRoot = compileGetter(roots.error);
  const errorFields = errorNode.fields;
  const codes = new Map(Object.entries(contract.errors?.codes ?? {}));
  const statuses = new Map(Object.entries(contract.errors?.statuses ?? {}).map(([s, d]) => [Number(s), d]));
  const signals = compileSignals(contract);
  const marketplaceOut = new Map(Object.entries(enums.marketplace).map(([theirs, ours]) => [ours, theirs]));
  const platformOut = new Map(Object.entries(enums.platform).map(([theirs, ours]) => [ours, theirs]));

  return {
    source: contract,
    book: object('book', bookSchema),
    bookKeywords: object('bookKeywords', bookKeywordsValidator),
    invites: object('invites', arcInviteResultSchema),
    inviteRequest(body) {
      if (requestIsDefault) return body;
      const written = requestNode.write(body);
      if (setRequestRoot === undefined) return written;
      const out: Record<string, unknown> = {};
      setRequestRoot(out, written);
      return out;
    },
    inviteRequestIn(body) {
      if (requestIsDefault) return body;
      const read = requestNode.read(getRequestRoot(body));
      return read === FAIL ? {} : read;
    },
    keywordSearch: list('keywordSearch', keywordSearchResultSchema),
    rankings: list('rankings', rankingSeriesSchema),
    reviews: list('reviews', arcReviewSchema),
    // Money is null only where a contract's noFigure says so; the assumed contract has none.
    sales: list<SalesRecord>('sales', isDefault('sales') ? salesRecordSchema : salesReadSchema),
    pagination,
    params: paramNames(contract, defaults),
    queries,
    enumOut: {
      marketplace: (v) => String(marketplaceOut.get(v) ?? v),
      platform: (v) => String(platformOut.get(v) ?? v),
    },
    enumIn: {
      marketplace: (v) => (Object.hasOwn(enums.marketplace, v) ? (enums.marketplace[v] as string) : v),
      platform: (v) => (Object.hasOwn(enums.platform, v) ? (enums.platform[v] as string) : v),
    },
    // Field by field and forgiving: an error body is read for what it tells, never rejected.
    errorBody(body) {
      const root = getErrorRoot(body);
      if (typeof root !== 'object' || root === null) return undefined;
      const out: ErrorFields = {};
      for (const field of errorFields) {
        const value = field.read(root);
        if (value === FAIL || typeof value === 'symbol') continue;
        if (field.name === 'code' && typeof value === 'string' && value !== '') out.code = value;
        if (field.name === 'message' && typeof value === 'string') out.message = value;
        if (field.name === 'requestId' && typeof value === 'string') out.requestId = value;
        if (field.name === 'details' && Array.isArray(value)) out.details = value as ErrorFields['details'];
      }
      return out.code === undefined ? undefined : out;
    },
    errorCode: (code) => codes.get(code) ?? code,
    monthly: (headers, body) => signals.monthly(headers, body),
    decision: (status) => statuses.get(status) ?? (status >= 500 ? 'transient' : 'failed'),
    rateLimit: (headers, nowMs, body) => signals.rateLimit(headers, nowMs, body),
    requestId: (headers, body) => signals.requestId(headers, body),
    signalsInBody: signals.inBody,
    retryAfterHeader: header(contract.rateLimit?.retryAfter) ?? null,
    requestIdHeader: header(contract.requestIdHeader) ?? 'x-request-id',
    nodes,
    roots,
  };
}

let defaultCompiled: CompiledContract | undefined;
/** The default contract, compiled once per process. */
export function defaultContract(): CompiledContract {
  // `as const` makes its lists readonly; compileContract never mutates what it is given.
  defaultCompiled ??= compileContract(DEFAULT_CONTRACT as unknown as ContractFile);
  return defaultCompiled;
}
