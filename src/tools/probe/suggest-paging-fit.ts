/**
 * Whether the contract would walk the pages a list's first answer shows. An API that pages with a
 * cursor at a path the contract does not read (or in a style it does not read: a Link header, a next
 * URL, page numbers or offsets with a total) gives `run` its first page only, and nothing says so: a
 * book or keyword on page 2 is never seen. That is a misfit of the contract (probe exits 3), like a
 * parameter the API refuses, listed with the pagination the suggestion has. Pure.
 */
import { type CompiledContract, isListEndpoint, linkNext } from '../../api/tooling.ts';
import type { RecordedAnswer } from './probe-analyse.ts';
import { itemsIn, pagesInBody, tailPlan } from './probe-tail.ts';

type Style = 'linkHeader' | 'nextUrl' | 'cursor' | 'page' | 'offset';

/** The next page the API shows in a first answer, in its own style; undefined when it shows none. */
function shownNext(answer: RecordedAnswer): { style: Style; text: string } | undefined {
  if (linkNext(answer.headers.link) !== undefined)
    return { style: 'linkHeader', text: 'a Link header (rel="next")' };
  const url = stringUnder(answer.body, true);
  if (url !== undefined) return { style: 'nextUrl', text: `a next-page URL at "${url}"` };
  const cursor = stringUnder(answer.body, false);
  if (cursor !== undefined) return { style: 'cursor', text: `a cursor at "${cursor}"` };
  const tail = tailPlan(answer, undefined);
  if (tail === undefined) return undefined;
  return {
    style: tail.style,
    text: tail.style === 'page' ? 'page numbers with a total' : 'offsets with a total',
  };
}

/** The path of the first non-empty string under a next/cursor/token key that is a URL (or that is not). */
function stringUnder(body: unknown, url: boolean): string | undefined {
  let found: string | undefined;
  const visit = (value: unknown, prefix: string, depth: number) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 0) return;
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (
        found === undefined &&
        typeof child === 'string' &&
        child !== '' &&
        /next|cursor|token/i.test(key) &&
        /^(https?:\/\/|\/)/.test(child) === url
      )
        found = path;
      visit(child, path, depth - 1);
    }
  };
  visit(body, '', 3);
  return found;
}

/** What the contract reads of the next page, said for the misfit line. */
function readsAs(contract: CompiledContract, endpoint: RecordedAnswer['endpoint']): string {
  const own = contract.source.endpoints?.[endpoint as 'sales']?.pagination;
  const spec = own ?? contract.source.pagination;
  if (endpoint === 'bookKeywords' && own === undefined) return 'reads one answer (no pagination)';
  if (spec?.linkHeader !== undefined) return 'reads a Link header';
  if (spec?.nextUrl !== undefined) return `reads a next URL at "${spec.nextUrl.next}"`;
  if (spec?.page !== undefined) return `reads page numbers (${spec.page.param})`;
  if (spec?.offset !== undefined) return `reads offsets (${spec.offset.param})`;
  return `reads a cursor at "${spec?.cursor?.next ?? 'next_cursor'}"`;
}

/**
 * The lists (and book keywords) whose first answer shows a next page the contract would not follow:
 * one line each, for the misfits `probe` lists before exiting 3.
 */
export function pagingMisfits(contract: CompiledContract, answers: readonly RecordedAnswer[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const answer of answers) {
    const { endpoint } = answer;
    if (answer.status >= 300 || answer.page !== undefined || seen.has(endpoint)) continue;
    if (!isListEndpoint(endpoint) && endpoint !== 'bookKeywords') continue;
    seen.add(endpoint);
    const shown = shownNext(answer);
    if (shown === undefined) continue;
    const paging = contract.pagination[endpoint as 'sales'] as
      | (typeof contract.pagination)['sales']
      | undefined;
    const misfit = `pagination: ${endpoint} pages by ${shown.text}; the contract ${readsAs(contract, endpoint)}: run would read its first page only (the suggestion pages it)`;
    if (paging === undefined) {
      out.push(misfit);
      continue;
    }
    const items = itemsIn(answer.body).length;
    const query = new URLSearchParams(answer.path.split('?')[1] ?? '');
    const sent = Number(query.get(paging.limitParam) ?? Number.NaN);
    const limit = Number.isSafeInteger(sent) && sent > 0 ? sent : items;
    const next = paging.next(answer.body, answer.headers, null, items, limit);
    // A next page is followed only in the style the API pages by: a page number sent to an API that
    // pages by cursor brings the first page again. A total alone fits page numbers and offsets.
    const assumed = shown.style === 'offset' && pagesInBody(answer.body)?.assumed === true;
    const sameStyle =
      paging.style === shown.style || (assumed && (paging.style === 'page' || paging.style === 'offset'));
    if ('error' in next || next.position === null || !sameStyle) out.push(misfit);
  }
  return out;
}
