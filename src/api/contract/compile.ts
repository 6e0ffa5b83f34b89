/**
 * A merged contract compiled once into the functions the client runs per answer: readers (answer →
 * the canonical types of schemas.ts, validated by the same zod schemas and loops as ever), the
 * pagination, the error body and the rate-limit headers. An endpoint whose part of the contract is
 * the default's reads the answer as it is, exactly as before contracts existed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import type { SchemaIssue } from '../errors.ts';
import {
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
  salesRecordSchema,
} from '../schemas.ts';
import type { RateLimitInfo } from '../types.ts';
import type { BodyValidator } from '../validator.ts';
import { CATALOG, type EndpointName, LIST_ENDPOINTS, type ListEndpointName } from './catalog.ts';
import { DEFAULT_CONTRACT } from './default.ts';
import { compileObject, type Enums, type FieldIssue, type ObjectNode } from './fields.ts';
import { describeFound, FAIL } from './formats.ts';
import { locate, valueAtIssuePath } from './locate.ts';
import { mergePagination } from './merge.ts';
import { type CompiledPagination, compilePagination } from './paging.ts';
import { compileGetter } from './path.ts';
import type { ContractFile, Decision, FilterParam } from './schema.ts';

export type ReadResult<T> = { ok: true; data: T } | { ok: false; issues: SchemaIssue[] };
export type BodyReader<T> = (body: unknown) => ReadResult<T>;

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
  readonly keywordSearch: BodyReader<KeywordSearchResult[]>;
  readonly rankings: BodyReader<RankingSeries[]>;
  readonly reviews: BodyReader<ArcReview[]>;
  readonly sales: BodyReader<SalesRecord[]>;
  readonly pagination: Readonly<Record<ListEndpointName, CompiledPagination>>;
  readonly params: Readonly<Record<FilterParam, string>>;
  /** Our enum value → the API's, for query parameters. */
  readonly enumOut: { marketplace(v: string): string; platform(v: string): string };
  readonly errorBody: (body: unknown) => ErrorFields | undefined;
  /** Our code for the API's error code. */
  readonly errorCode: (code: string) => string;
  readonly decision: (status: number) => Decision;
  readonly rateLimit: (headers: IncomingHttpHeaders, nowMs: number) => RateLimitInfo;
  readonly retryAfterHeader: string | null;
  readonly requestIdHeader: string;
  /** The compiled objects, for the simulator's writer and for reports. */
  readonly nodes: Readonly<Record<EndpointName, ObjectNode>>;
  readonly roots: Readonly<Record<EndpointName, string>>;
}

function zodIssues(
  error: z.ZodError,
  node: ObjectNode,
  body: unknown,
  rawPrefix: string,
  fieldPrefix: string,
  indexed: boolean,
): SchemaIssue[] {
  return error.issues.map((issue) => {
    let path: readonly PropertyKey[] = issue.path;
    let prefix = rawPrefix;
    let fields = fieldPrefix;
    if (indexed && typeof path[0] === 'number') {
      prefix = `${rawPrefix}[${path[0]}]`;
      fields = `${fieldPrefix}[${path[0]}]`;
      path = path.slice(1);
    }
    const at = locate(node, path, prefix, fields);
    return {
      path: at.path,
      message: issue.message,
      field: at.field,
      found: describeFound(valueAtIssuePath(body, at.path)),
    };
  });
}

function fromFieldIssues(issues: FieldIssue[]): SchemaIssue[] {
  return issues.map((i) => ({ path: i.path, message: i.message, field: i.field, found: i.found }));
}

function rootIssue(root: string, found: unknown, what: string): SchemaIssue[] {
  return [
    {
      path: root === '' ? '(root)' : root,
      message: `expected ${what}`,
      field: '(envelope)',
      found: describeFound(found),
    },
  ];
}

function objectReader<T>(
  name: EndpointName,
  node: ObjectNode,
  root: string,
  validator: BodyValidator<T>,
  identity: boolean,
): BodyReader<T> {
  const getRoot = compileGetter(root);
  return (body) => {
    const raw = getRoot(body);
    const canonical = identity ? raw : node.read(raw);
    if (canonical === FAIL) {
      const issues: FieldIssue[] = [];
      node.explain(raw, root, name, issues);
      return {
        ok: false,
        issues: issues.length > 0 ? fromFieldIssues(issues) : rootIssue(root, raw, 'an object'),
      };
    }
    const result = validator.safeParse(canonical);
    if (result.success) return { ok: true, data: result.data };
    return { ok: false, issues: zodIssues(result.error, node, body, root, name, false) };
  };
}

function listReader<T>(
  name: EndpointName,
  node: ObjectNode,
  itemsPath: string,
  item: z.ZodType<T>,
  identity: boolean,
): BodyReader<T[]> {
  const getItems = compileGetter(itemsPath);
  const array = item.array();
  return (body) => {
    const raw = getItems(body);
    if (!Array.isArray(raw)) return { ok: false, issues: rootIssue(itemsPath, raw, 'a list') };
    let items: unknown[] = raw;
    if (!identity) {
      items = new Array<unknown>(raw.length);
      for (let i = 0; i < raw.length; i++) {
        const value = node.read(raw[i]);
        if (value === FAIL) {
          const issues: FieldIssue[] = [];
          node.explain(raw[i], `${itemsPath}[${i}]`, `${name}[${i}]`, issues);
          return { ok: false, issues: fromFieldIssues(issues) };
        }
        items[i] = value;
      }
    }
    const result = array.safeParse(items);
    if (result.success) return { ok: true, data: result.data };
    return { ok: false, issues: zodIssues(result.error, node, body, itemsPath, name, true) };
  };
}

function header(name: string | null | undefined): string | undefined {
  return name === null || name === undefined ? undefined : name.toLowerCase();
}

function headerInt(headers: IncomingHttpHeaders, name: string | undefined): number | undefined {
  if (name === undefined) return undefined;
  const value = headers[name];
  const first = (Array.isArray(value) ? value[0] : value)?.trim();
  if (first === undefined || !/^\d+$/.test(first)) return undefined;
  const n = Number(first);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function compileContract(contract: ContractFile): CompiledContract {
  const enums: Enums = {
    marketplace: contract.enums?.marketplace ?? {},
    platform: contract.enums?.platform ?? {},
    inviteStatus: contract.enums?.inviteStatus ?? {},
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

  const pagination = {} as Record<ListEndpointName, CompiledPagination>;
  for (const name of LIST_ENDPOINTS) {
    pagination[name] = compilePagination(
      mergePagination(contract.pagination, contract.endpoints?.[name]?.pagination),
    );
  }

  const errorNode = nodes.error;
  const getErrorRoot = compileGetter(roots.error);
  const errorFields = errorNode.fields;
  const codes = new Map(Object.entries(contract.errors?.codes ?? {}));
  const statuses = new Map(Object.entries(contract.errors?.statuses ?? {}).map(([s, d]) => [Number(s), d]));
  const rl = contract.rateLimit ?? {};
  const names = {
    limit: header(rl.limit),
    remaining: header(rl.remaining),
    reset: header(rl.reset?.header),
    quotaLimit: header(rl.quotaLimit),
    quotaRemaining: header(rl.quotaRemaining),
  };
  const resetFormat = rl.reset?.format ?? 'epoch_s';
  const marketplaceOut = new Map(Object.entries(enums.marketplace).map(([theirs, ours]) => [ours, theirs]));
  const platformOut = new Map(Object.entries(enums.platform).map(([theirs, ours]) => [ours, theirs]));

  return {
    source: contract,
    book: object('book', bookSchema),
    bookKeywords: object('bookKeywords', bookKeywordsValidator),
    invites: object('invites', arcInviteResultSchema),
    keywordSearch: list('keywordSearch', keywordSearchResultSchema),
    rankings: list('rankings', rankingSeriesSchema),
    reviews: list('reviews', arcReviewSchema),
    sales: list('sales', salesRecordSchema),
    pagination,
    params: { ...DEFAULT_CONTRACT.params, ...contract.params },
    enumOut: {
      marketplace: (v) => marketplaceOut.get(v) ?? v,
      platform: (v) => platformOut.get(v) ?? v,
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
    decision: (status) => statuses.get(status) ?? (status >= 500 ? 'transient' : 'failed'),
    rateLimit(headers, nowMs) {
      const info: RateLimitInfo = {};
      const limit = headerInt(headers, names.limit);
      const remaining = headerInt(headers, names.remaining);
      const reset = headerInt(headers, names.reset);
      const quotaLimit = headerInt(headers, names.quotaLimit);
      const quotaRemaining = headerInt(headers, names.quotaRemaining);
      if (limit !== undefined) info.limit = limit;
      if (remaining !== undefined) info.remaining = remaining;
      if (reset !== undefined) {
        info.resetAt =
          resetFormat === 'epoch_ms'
            ? reset
            : resetFormat === 'delta_s'
              ? nowMs + reset * 1000
              : reset * 1000;
      }
      if (quotaLimit !== undefined) info.quotaLimit = quotaLimit;
      if (quotaRemaining !== undefined) info.quotaRemaining = quotaRemaining;
      return info;
    },
    retryAfterHeader: header(rl.retryAfter) ?? null,
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
