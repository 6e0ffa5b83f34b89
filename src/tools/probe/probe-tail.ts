/**
 * The last page of a long list whose first answer states its size (a total of items or pages): one
 * request more finds two things no first page shows. The name of the page-number or offset
 * parameter (an answer that differs from the first page took it; a 400 naming it, or the first page
 * again, did not, and the next likely name is tried), and how the API says "no rank": a book's
 * keywords are ordered by traffic, so their tail is where keywords without a rank are. Pure but for
 * the requests the caller makes.
 */
import { type ContractFile, linkNext } from '../../api/tooling.ts';
import { aloneEvidence, alonePath, filtersRefused } from './probe-alone.ts';
import type { PageFinding, RecordedAnswer } from './probe-analyse.ts';

export type PageStyle = 'offset' | 'page';

/** Where a body states page numbers or offsets: its page count, item total, page or offset member. */
export interface PagesInBody {
  style: PageStyle;
  totalPages?: string;
  totalItems?: string;
  /** True when the style was read from a total alone (no offset or page member beside it). */
  assumed: boolean;
}

/** Page numbers or offsets a body shows by its members' names; undefined when it shows neither. */
export function pagesInBody(body: unknown): PagesInBody | undefined {
  const numbers = new Map<string, string>();
  const visit = (value: unknown, prefix: string, depth: number) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 0) return;
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (typeof child === 'number' && Number.isSafeInteger(child) && child >= 0)
        numbers.set(key.toLowerCase(), path);
      visit(child, path, depth - 1);
    }
  };
  visit(body, '', 3);
  const find = (...names: string[]) => names.map((n) => numbers.get(n)).find((p) => p !== undefined);
  const totalPages = find('totalpages', 'pages', 'pagecount', 'total_pages', 'page_count');
  const totalItems = find('total', 'totalitems', 'totalcount', 'total_items', 'total_count', 'count');
  const page = find('page', 'currentpage', 'current_page', 'pagenumber', 'page_number');
  const offset = find('offset', 'skip', 'start');
  const totals = {
    ...(totalPages === undefined ? {} : { totalPages }),
    ...(totalItems === undefined ? {} : { totalItems }),
  };
  if (offset !== undefined)
    return { style: 'offset', ...(totalItems === undefined ? {} : { totalItems }), assumed: false };
  if (totalPages !== undefined || page !== undefined) return { style: 'page', ...totals, assumed: false };
  if (totalItems !== undefined) return { style: 'offset', totalItems, assumed: true };
  return undefined;
}

/** The longest list of objects in a body (depth 3): the page's items. */
export function itemsIn(body: unknown): unknown[] {
  let best: unknown[] = [];
  const visit = (value: unknown, depth: number) => {
    if (Array.isArray(value)) {
      if (value.length > best.length && value.every((v) => typeof v === 'object' && v !== null)) best = value;
      return;
    }
    if (typeof value !== 'object' || value === null || depth === 0) return;
    for (const child of Object.values(value)) visit(child, depth - 1);
  };
  visit(body, 4);
  return best;
}

const numberAt = (body: unknown, path: string | undefined): number | undefined => {
  if (path === undefined) return undefined;
  let at: unknown = body;
  for (const part of path.split('.'))
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined;
  return typeof at === 'number' ? at : undefined;
};

/** Names APIs give the page-number and offset parameters, most common first. */
export const PAGE_PARAM_CANDIDATES: Readonly<Record<PageStyle, readonly string[]>> = {
  offset: ['offset', 'skip', 'start', 'startIndex'],
  page: ['page', 'pageNumber', 'page_number', 'p', 'pageIndex'],
};

/** The most names tried for the last page: each is a request from the month. */
const MAX_TRIES = 3;

/**
 * The last-page request to make after `first`: the style, the value (the last offset or page), and
 * the names to try (the contract's first); undefined when the first page already holds everything.
 */
export function tailPlan(
  first: RecordedAnswer,
  contractParam: string | undefined,
): { style: PageStyle; value: number; names: string[] } | undefined {
  if (first.status >= 300) return undefined;
  const seen = pagesInBody(first.body);
  if (seen === undefined) return undefined;
  const n = itemsIn(first.body).length;
  if (n === 0) return undefined;
  const totalItems = numberAt(first.body, seen.totalItems);
  const totalPages =
    numberAt(first.body, seen.totalPages) ??
    (totalItems === undefined ? undefined : Math.ceil(totalItems / n));
  const names = [contractParam, ...PAGE_PARAM_CANDIDATES[seen.style]]
    .filter((name): name is string => name !== undefined)
    .filter((name, i, all) => all.indexOf(name) === i)
    .slice(0, MAX_TRIES);
  if (seen.style === 'offset') {
    if (totalItems === undefined || totalItems <= n) return undefined;
    return { style: 'offset', value: Math.max(n, totalItems - n), names };
  }
  if (totalPages === undefined || totalPages < 2) return undefined;
  return { style: 'page', value: totalPages, names };
}

/**
 * The second-page request of a list whose first answer gave a cursor (a string under a key named
 * next, cursor or token that is not a URL) the contract does not know: the cursor, and the names to
 * send it back under, the one its own key suggests first (`nextToken`, then `token`; `nextPageToken`,
 * then `pageToken`).
 */
export function cursorPlan(
  first: RecordedAnswer,
  known: string | undefined,
): { value: string; names: string[] } | undefined {
  if (first.status >= 300 || first.headers.link !== undefined) return undefined;
  let found: { path: string; value: string } | undefined;
  const visit = (value: unknown, prefix: string, depth: number) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 0) return;
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (found === undefined && typeof child === 'string' && child !== '' && /next|cursor|token/i.test(key))
        found = { path, value: child };
      visit(child, path, depth - 1);
    }
  };
  visit(first.body, '', 3);
  if (found === undefined || found.path === known || /^(https?:\/\/|\/)/.test(found.value)) return undefined;
  const key = found.path.split('.').pop() ?? '';
  const bare = key.replace(/^next_?/i, '');
  const names = [key, bare.charAt(0).toLowerCase() + bare.slice(1), 'cursor', 'nextToken', 'pageToken']
    .filter((name, i, all) => name !== '' && all.indexOf(name) === i)
    .slice(0, MAX_TRIES);
  return { value: found.value, names };
}

/** The first page's path with `name=value` added. */
export function withParam(path: string, name: string, value: number | string): string {
  const [base, query = ''] = path.split('?');
  const params = new URLSearchParams(query);
  params.set(name, String(value));
  return `${base}?${params.toString()}`;
}

/**
 * What an answer to the last-page request says of the name tried: `took` (items other than the first
 * page's), `refused` (a 400 or 422 that names it, or the first page again: an API that ignores an
 * unknown parameter), or `stop` (another refusal: asking again would not tell more).
 */
export function judgeTail(
  first: RecordedAnswer,
  answer: RecordedAnswer,
  name: string,
): 'took' | 'refused' | 'stop' {
  if (answer.status === 400 || answer.status === 422)
    return (JSON.stringify(answer.body) ?? '').includes(name) ? 'refused' : 'stop';
  if (answer.status >= 300) return 'stop';
  const a = itemsIn(first.body);
  const b = itemsIn(answer.body);
  return JSON.stringify(a[0]) === JSON.stringify(b[0]) && a.length === b.length ? 'refused' : 'took';
}

/** What a tail request may spend and how it asks (probe-run.ts: the budget, the cap, the request). */
export interface TailBudget {
  spent: () => number;
  max: number;
  unchecked: string[];
  ask: (endpoint: RecordedAnswer['endpoint'], path: string) => Promise<RecordedAnswer>;
}

/**
 * Asks the last (or, for a cursor, the second) page of `first`, one request per name tried within
 * the cap: the answer that took a name, marked with what it found; undefined, with the reason in
 * `unchecked`, when none did.
 */
async function askTail(
  first: RecordedAnswer,
  contractParam: string | undefined,
  knownCursor: string | undefined,
  budget: TailBudget,
): Promise<RecordedAnswer | undefined> {
  const cursor = cursorPlan(first, knownCursor);
  const plan: { style: PageFinding['style']; value: number | string; names: string[] } | undefined =
    cursor === undefined ? tailPlan(first, contractParam) : { style: 'cursor', ...cursor };
  if (plan === undefined) return undefined;
  for (const name of plan.names) {
    if (budget.spent() >= budget.max) {
      budget.unchecked.push(
        `${first.endpoint}: the ${plan.style === 'cursor' ? 'second' : 'last'} page was not asked: the cap of ${budget.max} requests was reached (the ${plan.style} parameter's name is unchecked)`,
      );
      return undefined;
    }
    const answer = await budget.ask(first.endpoint, withParam(first.path, name, plan.value));
    // A token refused beside the filters is asked once more alone (probe-alone.ts), within the cap.
    const refused = plan.style === 'cursor' ? filtersRefused(first, answer, name) : [];
    if (refused.length > 0 && typeof plan.value === 'string') {
      if (budget.spent() >= budget.max) {
        budget.unchecked.push(
          `${first.endpoint}: the second page was refused beside the filters (${refused.join(', ')}) and the cap of ${budget.max} requests left no request to send ${name} alone (cursor.alone is unchecked)`,
        );
        return undefined;
      }
      const alone = await budget.ask(first.endpoint, alonePath(first, name, plan.value));
      if (judgeTail(first, alone, name) === 'took')
        return {
          ...alone,
          page: { style: 'cursor', param: name, value: plan.value, alone: true },
          evidence: [aloneEvidence(first, name, refused, answer.status)],
        };
    }
    const verdict = judgeTail(first, answer, name);
    if (verdict === 'took') return { ...answer, page: { style: plan.style, param: name, value: plan.value } };
    if (verdict === 'stop') break;
  }
  budget.unchecked.push(
    `${first.endpoint}: no ${plan.style} parameter was taken (${plan.names.join(', ')} tried): its name is unchecked; find it in the API document`,
  );
  return undefined;
}

/**
 * The tail requests of a probe, added to `answers`: the last page of the book's keywords (their "no
 * rank" values), then of the first list paged in a style not learnt yet, for its parameter's name.
 */
export async function askTails(
  answers: RecordedAnswer[],
  source: ContractFile,
  budget: TailBudget,
): Promise<void> {
  const pagingOf = (a: RecordedAnswer) =>
    source.endpoints?.[a.endpoint as 'sales']?.pagination ?? source.pagination;
  // Where the contract reads a cursor (the default's next_cursor when it names no other style).
  const knownCursor = (a: RecordedAnswer) => {
    const own = pagingOf(a);
    if (own?.cursor !== undefined) return own.cursor.next;
    return (own?.offset ?? own?.page ?? own?.nextUrl ?? own?.linkHeader) ? undefined : 'next_cursor';
  };
  const styleOf = (a: RecordedAnswer) =>
    cursorPlan(a, knownCursor(a)) !== undefined ? 'cursor' : tailPlan(a, undefined)?.style;
  const tailOf = async (first: RecordedAnswer) => {
    const own = pagingOf(first);
    const tail = await askTail(first, own?.offset?.param ?? own?.page?.param, knownCursor(first), budget);
    if (tail !== undefined) answers.push(tail);
  };
  const keywords = answers.find((a) => a.endpoint === 'bookKeywords');
  if (keywords !== undefined) await tailOf(keywords);
  const learnt = new Set(answers.flatMap((a) => (a.page === undefined ? [] : [a.page.style])));
  const list = answers.find((a) => {
    const style = a.endpoint === 'bookKeywords' || a.page !== undefined ? undefined : styleOf(a);
    return style !== undefined && !learnt.has(style);
  });
  if (list !== undefined) await tailOf(list);
}

/** A next-page cursor or URL in a body (a non-empty string under a key named next or cursor). */
function nextInBody(body: unknown): boolean {
  let found = false;
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 0) return;
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === 'string' && child !== '' && /next|cursor/i.test(key)) found = true;
      visit(child, depth - 1);
    }
  };
  visit(body, 3);
  return found;
}

/**
 * The page size the API was seen to keep to: the fewest items of a list answer that showed a next
 * page (a Link header, a cursor or next URL, a total beyond its items). A page that full with no next
 * page in sight may go on by page numbers or offsets. Undefined when no answer showed a next page.
 */
export function observedPageSize(answers: readonly RecordedAnswer[]): number | undefined {
  let size: number | undefined;
  for (const answer of answers) {
    if (answer.status >= 300 || answer.page !== undefined) continue;
    const n = itemsIn(answer.body).length;
    if (n === 0) continue;
    const more =
      linkNext(answer.headers.link) !== undefined ||
      nextInBody(answer.body) ||
      tailPlan(answer, undefined) !== undefined;
    if (more) size = Math.min(size ?? n, n);
  }
  return size;
}
