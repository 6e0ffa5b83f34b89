/**
 * What probe's suggestion reads from the wire around the fields: the pagination style (a Link
 * header, a next URL or a cursor in the body) and the rate-limit and request-id headers. Pure.
 */
import {
  type CompiledContract,
  type ContractFile,
  type ListEndpointName,
  linkNext,
  type PaginationSpec,
  paginationStyles,
} from '../../api/tooling.ts';
import type { PageFinding, RecordedAnswer } from './probe-analyse.ts';
import { pagesInBody } from './probe-tail.ts';
import { suggestLimit } from './suggest-rate.ts';
import { bodySignals } from './suggest-signals.ts';

/** Pagination seen in a list answer: a Link header, a next URL or a cursor in the body. */
export function paginationOf(
  contract: CompiledContract,
  answer: RecordedAnswer,
  undecided: string[],
  learnt: readonly PageFinding[] = [],
): ContractFile['pagination'] | undefined {
  const link = answer.headers.link;
  if (link !== undefined && linkNext(link) !== undefined) return { linkHeader: {} };
  const found: { path: string; value: string }[] = [];
  const visit = (value: unknown, prefix: string, depth: number) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 0) return;
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (typeof child === 'string' && /next|cursor/i.test(key)) found.push({ path, value: child });
      visit(child, path, depth - 1);
    }
  };
  visit(answer.body, '', 3);
  const next = found[0];
  if (next === undefined) return pagesFrom(answer.body, undecided, learnt);
  if (/^(https?:\/\/|\/)/.test(next.value)) return { nextUrl: { next: next.path } };
  const taken = learnt.find((f) => f.style === 'cursor');
  if (next.path === contract.source.pagination?.cursor?.next)
    // The contract reads this cursor; a second page refused beside the filters adds `alone`.
    return taken?.alone === true && contract.source.pagination.cursor.alone !== true
      ? { cursor: { ...contract.source.pagination.cursor, alone: true } }
      : {};
  if (taken !== undefined)
    return {
      cursor: { param: taken.param, next: next.path, ...(taken.alone === true ? { alone: true } : {}) },
    };
  undecided.push(
    `pagination: a cursor at "${next.path}"; the query parameter that sends it back cannot be seen in an answer (kept "cursor")`,
  );
  return { cursor: { param: 'cursor', next: next.path } };
}

/**
 * Page numbers or offsets a body shows (probe-tail.ts), with the parameter's name the last-page
 * request found (`learnt`), or the usual one, said as a guess.
 */
function pagesFrom(
  body: unknown,
  undecided: string[],
  learnt: readonly PageFinding[],
): ContractFile['pagination'] | undefined {
  const seen = pagesInBody(body);
  if (seen === undefined) return undefined;
  const taken = learnt.find((f) => f.style === seen.style)?.param;
  const param = taken ?? seen.style;
  if (taken === undefined) {
    const what =
      seen.style === 'page'
        ? 'page numbers'
        : seen.assumed
          ? 'a total without a page number (offsets assumed)'
          : 'offsets';
    undecided.push(
      `pagination: ${what} seen in the body; the query parameter that asks for one cannot be seen in an answer (kept "${param}"): check it in the API document`,
    );
  }
  if (seen.style === 'offset')
    return { offset: { param, ...(seen.totalItems === undefined ? {} : { total: seen.totalItems }) } };
  const spec: NonNullable<PaginationSpec['page']> = { param, firstPage: 1 };
  if (seen.totalPages !== undefined) spec.totalPages = seen.totalPages;
  else if (seen.totalItems !== undefined) spec.totalItems = seen.totalItems;
  return { page: spec };
}

/** Two specs name the same style: both a Link header, or a next URL or cursor at the same place. */
function sameStyle(a: PaginationSpec | undefined, b: PaginationSpec | undefined): boolean {
  return (
    (a?.linkHeader !== undefined && b?.linkHeader !== undefined) ||
    (a?.nextUrl !== undefined && a.nextUrl.next === b?.nextUrl?.next) ||
    (a?.cursor !== undefined &&
      a.cursor.next === b?.cursor?.next &&
      (a.cursor.alone === true) === (b.cursor.alone === true)) ||
    (a?.page !== undefined &&
      a.page.totalPages === b?.page?.totalPages &&
      a.page.totalItems === b?.page?.totalItems) ||
    (a?.offset !== undefined && a.offset.total === b?.offset?.total)
  );
}

export interface PaginationSuggestion {
  /** The style for every list; undefined keeps the contract's. */
  shared: PaginationSpec | undefined;
  /** Lists whose answer showed another style than the shared one: their own pagination. */
  own: Map<ListEndpointName, PaginationSpec>;
}

/**
 * The pagination the recorded list answers show. The first list that shows a next page sets the
 * style for every list; a later list that shows another style gets its own. A list whose answer
 * showed no next page may be one page, or may page by numbers or offsets, which one answer cannot
 * show: it is listed for a person to check, not passed over in silence.
 */
export function suggestPagination(
  contract: CompiledContract,
  lists: readonly (RecordedAnswer & { endpoint: ListEndpointName })[],
  undecided: string[],
  learnt: readonly PageFinding[] = [],
): PaginationSuggestion {
  const current = contract.source.pagination;
  let shared: PaginationSpec | undefined;
  let sharedBy: string | undefined;
  const own = new Map<ListEndpointName, PaginationSpec>();
  const unpaged: string[] = [];
  for (const answer of lists) {
    const notes: string[] = [];
    const seen = paginationOf(contract, answer, notes, learnt);
    if (seen === undefined) {
      unpaged.push(answer.endpoint);
      continue;
    }
    // `{}` is the contract's own cursor, seen as it says.
    const style = Object.keys(seen).length === 0 ? current : seen;
    if (sharedBy === undefined) {
      sharedBy = answer.endpoint;
      shared = style;
      undecided.push(...notes);
      continue;
    }
    const expected = contract.source.endpoints?.[answer.endpoint]?.pagination ?? shared;
    if (sameStyle(style, expected)) continue;
    // Its style only: the endpoint keeps the shared `limit`.
    own.set(answer.endpoint, paginationStyles(style));
    undecided.push(...notes.map((note) => `${answer.endpoint} ${note}`));
  }
  const assumed =
    sharedBy === undefined ? "the contract's pagination is kept" : `the style seen on ${sharedBy} is assumed`;
  for (const name of unpaged)
    undecided.push(
      `pagination of ${name}: its answer showed no next page (one page, or page numbers or offsets that one answer cannot show); ${assumed}: check it in the API document, and set this endpoint's own pagination if it differs`,
    );
  return { shared: sameStyle(shared, current) ? undefined : shared, own };
}

const HEADER_PATTERNS: readonly [keyof NonNullable<ContractFile['rateLimit']> | 'requestId', RegExp][] = [
  ['quotaLimit', /quota.*limit/],
  ['quotaUsed', /quota.*used/],
  ['quotaRemaining', /quota.*remaining/],
  ['limit', /rate.?limit.?limit|^ratelimit-limit$/],
  ['remaining', /rate.?limit.?remaining/],
  ['reset', /rate.?limit.?reset/],
  ['requestId', /(request|trace|correlation).?id/],
];

export function headersOf(
  contract: CompiledContract,
  answers: readonly RecordedAnswer[],
  undecided: string[],
): Partial<ContractFile> {
  const seen = new Map<string, string>();
  for (const a of answers) for (const [k, v] of Object.entries(a.headers)) seen.set(k.toLowerCase(), v);
  const rl = contract.source.rateLimit ?? {};
  const rateLimit: Record<string, unknown> = {};
  const out: Partial<ContractFile> = {};
  const body = bodySignals(answers);
  const inBody = (key: string): string | undefined =>
    key === 'requestId' ? body.requestId : body[key as 'quotaLimit' | 'quotaRemaining' | 'quotaUsed'];
  for (const [key, pattern] of HEADER_PATTERNS) {
    const signal =
      key === 'requestId' ? contract.source.requestIdHeader : key === 'reset' ? rl.reset : rl[key];
    // A per-second bucket's remaining says nothing of the minute (validate refuses it), wherever it is.
    if (key === 'remaining' && (rateLimit.per ?? rl.per) === 'second') {
      if (signal !== null) rateLimit.remaining = null;
      continue;
    }
    // A signal the contract puts in the body is the user's decision: the headers do not override it.
    if (typeof signal === 'object' && signal !== null && 'body' in signal) continue;
    const current =
      typeof signal === 'string'
        ? signal
        : typeof signal === 'object' && signal !== null && 'header' in signal
          ? signal.header
          : signal;
    // The limit's window is decided even where the contract's header is there (suggest-rate.ts).
    if (key === 'limit') {
      Object.assign(rateLimit, suggestLimit(current, rl.per, seen, body.rate ?? {}, undecided));
      continue;
    }
    if (current != null && seen.has(current.toLowerCase())) continue;
    const name = [...seen.keys()].find((h) => pattern.test(h) && !(key === 'remaining' && /quota/.test(h)));
    const place = name === undefined ? inBody(key) : undefined;
    if (name === undefined && place !== undefined) {
      if (key === 'requestId') out.requestIdBody = place;
      else rateLimit[key] = { body: place };
      undecided.push(
        `${key}: read from the body at "${place}" (every answer has it, no header says it): check it`,
      );
      continue;
    }
    // "Used" seen where "remaining" is not: remaining is the limit less it (signals.ts).
    if (name === undefined && key === 'quotaRemaining' && rateLimit.quotaUsed !== undefined) {
      if (current != null) rateLimit.quotaRemaining = null;
      continue;
    }
    if (name === undefined) {
      if (current != null)
        undecided.push(
          `headers: "${current}" (${key}) was in no answer; keep it, rename it, or set it to null`,
        );
      continue;
    }
    if (key === 'requestId') out.requestIdHeader = name;
    else if (key === 'reset') {
      const v = Number(seen.get(name));
      rateLimit.reset = { header: name, format: v > 1e11 ? 'epoch_ms' : v > 1e8 ? 'epoch_s' : 'delta_s' };
    } else if (key === 'remaining' && !/^\d+$/.test((seen.get(name) ?? '').trim())) {
      undecided.push(`headers: "${name}" (${key}) is "${seen.get(name)}", not a whole count; left out`);
      if (current != null) rateLimit[key] = null;
    } else rateLimit[key] = name;
  }
  if (body.quotaReset !== undefined && rl.quotaReset == null) rateLimit.quotaReset = body.quotaReset;
  if (Object.keys(rateLimit).length > 0) out.rateLimit = rateLimit as NonNullable<ContractFile['rateLimit']>;
  return out;
}
