/**
 * The account `init` writes a config for: its books (the ASINs `/v1/rankings` lists, with their
 * marketplaces) and its ARC campaigns (the campaign ids in `/v1/arc/reviews`). Each list is read
 * whole, page after page by the contract's pagination through the client's own walk, so any
 * dialect's paging (cursor, next URL, Link header, page numbers, offsets) is followed as `run`
 * follows it. The probe's answer is the first page, and is all there is to read when it says so.
 */

import {
  type AnalyticsClient,
  type BodyReader,
  type CompiledContract,
  type ContractFile,
  collectAll,
  createAnalyticsClient,
  listPageReader,
  type ReadResult,
} from '../api/index.ts';
import { observedPageSize, type RecordedAnswer, valueAt } from '../tools/probe/index.ts';

export interface Account {
  /** ASIN → the marketplaces it is ranked in (empty: read loosely, the config's default). */
  books: Map<string, Set<string>>;
  campaigns: string[];
}

/** How one list was read: what it cost and, when it could not be read whole, why. */
export interface ListReport {
  list: 'rankings' | 'reviews';
  pages: number;
  /** Requests spent on this list after the probe (0 when the probe's page was the whole list). */
  requests: number;
  /** Why the items may not be the whole list, or how they were read; empty when all is well. */
  notes: string[];
}

export interface AccountRead {
  account: Account;
  lists: ListReport[];
}

interface BookRef {
  asin: string;
  marketplace?: string;
}

/** A runaway page chain is a fault of the API, not a reason to spend the month: 100,000 items. */
const MAX_PAGES = 1000;
const ASIN_SHAPED = /"(B0[0-9A-Z]{8})"/g;

function asinsIn(value: unknown): string[] {
  return [...(JSON.stringify(value) ?? '').matchAll(ASIN_SHAPED)].flatMap((m) => (m[1] ? [m[1]] : []));
}

function itemsAt(body: unknown, path: string, list: string): ReadResult<unknown[]> {
  const items = valueAt(body, path);
  if (Array.isArray(items)) return { ok: true, data: items };
  return { ok: false, issues: [{ path, message: 'expected a list', field: `${list} (items)` }] };
}

/** The path the suggestion found for a field (shorthand or `{path}`), else `fallback`. */
function fieldPath(suggested: ContractFile, list: 'rankings' | 'reviews', field: string, fallback: string) {
  const spec = suggested.endpoints?.[list]?.fields as Record<string, unknown> | undefined;
  const at = spec?.[field];
  if (typeof at === 'string') return at;
  const path = (at as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : fallback;
}

/**
 * The readers of the two lists: the contract's when it reads the probe's answer; otherwise (the
 * edits probe could not decide are not made yet) a loose one that takes only what discovery needs:
 * the ASIN-shaped strings of each item, and the campaign id at the path probe suggested.
 */
function readers(contract: CompiledContract, suggested: ContractFile, answers: readonly RecordedAnswer[]) {
  const probed = (list: 'rankings' | 'reviews') =>
    answers.find((a) => a.endpoint === list && a.status < 400 && a.page === undefined);
  const books: BodyReader<BookRef[]> = (body) => {
    const read = contract.rankings(body);
    return read.ok
      ? { ok: true, data: read.data.map((s) => ({ asin: s.asin, marketplace: s.marketplace })) }
      : read;
  };
  // Where probe found no list, the answer as a whole is searched (one page is better than none).
  const looseBooks: BodyReader<BookRef[]> = (body) => {
    const items = itemsAt(body, suggested.endpoints?.rankings?.items ?? 'data', 'rankings');
    const data = (items.ok ? items.data : [body]).flatMap((item) => asinsIn(item).map((asin) => ({ asin })));
    return { ok: true, data };
  };
  const campaigns: BodyReader<string[]> = (body) => {
    const read = contract.reviews(body);
    return read.ok ? { ok: true, data: read.data.map((r) => r.campaign_id) } : read;
  };
  const campaignPath = fieldPath(suggested, 'reviews', 'campaignId', 'campaign_id');
  const looseCampaigns: BodyReader<string[]> = (body) => {
    const items = itemsAt(body, suggested.endpoints?.reviews?.items ?? 'data', 'reviews');
    if (!items.ok) return items;
    return {
      ok: true,
      data: items.data.flatMap((item) => valueAt(item, campaignPath)).filter((id) => typeof id === 'string'),
    };
  };
  const fits = (reader: BodyReader<unknown[]>, answer: RecordedAnswer | undefined) =>
    answer !== undefined && reader(answer.body).ok;
  return {
    books: fits(books, probed('rankings'))
      ? { read: books, loose: false }
      : { read: looseBooks, loose: true },
    campaigns: fits(campaigns, probed('reviews'))
      ? { read: campaigns, loose: false }
      : { read: looseCampaigns, loose: true },
    probed,
  };
}

/**
 * One list read whole. The probe asked for the first page; when the contract's pagination takes
 * the next position from the answer itself (a cursor, a next URL, a Link header) and there is none,
 * that page was the whole list. Otherwise the list is walked from its first page (page numbers and
 * offsets depend on the page size, which the probe's request may not have set the contract's way).
 */
async function readWhole<T>(
  client: AnalyticsClient,
  contract: CompiledContract,
  list: 'rankings' | 'reviews',
  reader: BodyReader<T[]>,
  probed: RecordedAnswer | undefined,
  spent: () => number,
  /** The page size other lists showed (observedPageSize): an API may page by less than it is asked. */
  pageSize: number | undefined,
): Promise<{ items: T[]; report: ListReport }> {
  const paging = contract.pagination[list];
  const first =
    probed === undefined
      ? undefined
      : listPageReader(paging, reader, null, paging.maxLimit)(probed.body, probed.headers);
  const positional = paging.style === 'cursor' || paging.positionIsUrl;
  if (first?.ok && positional && first.data.next_cursor === null) {
    const { total } = first.data;
    if (total === undefined || total <= first.data.data.length) {
      const report: ListReport = { list, pages: 1, requests: 0, notes: [] };
      // A full page with no next page in sight may be page numbers or offsets, which one answer
      // cannot show: said, so a large account is not cut short in silence.
      const full = Math.min(paging.maxLimit, pageSize ?? paging.maxLimit);
      if (total === undefined && first.data.data.length >= full)
        report.notes.push(
          `a full page (${first.data.data.length} items${full < paging.maxLimit ? `, the page size the API's other lists showed` : ''}) and no next page the contract sees: if the list goes on by page numbers or offsets, set its pagination in the contract and run init --force --contract FILE`,
        );
      return { items: first.data.data, report };
    }
  }
  const before = spent();
  try {
    const walked = await collectAll(client.readList(list, reader, { limit: paging.maxLimit }), {
      maxPages: MAX_PAGES,
    });
    const report: ListReport = { list, pages: walked.pages, requests: spent() - before, notes: [] };
    if (walked.truncated) report.notes.push(`stopped after ${MAX_PAGES} pages: the list may go on`);
    return { items: walked.items, report };
  } catch (error) {
    // The probe's page still names some of the account: kept, and the failure said.
    const items = first?.ok ? first.data.data : [];
    const why = error instanceof Error ? error.message : String(error);
    return {
      items,
      report: {
        list,
        pages: 1,
        requests: spent() - before,
        notes: [`only its first page: reading the rest failed: ${why}`],
      },
    };
  }
}

/** Reads the account's books and campaigns whole; every request it makes is counted in the reports. */
export async function readAccount(options: {
  baseUrl: string;
  apiKey: string;
  version: string;
  contract: CompiledContract;
  suggested: ContractFile;
  answers: readonly RecordedAnswer[];
}): Promise<AccountRead> {
  const { contract, suggested, answers } = options;
  let requests = 0;
  const client = createAnalyticsClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    version: options.version,
    contract,
    beforeRequest: () => {
      requests += 1;
    },
  });
  try {
    const chosen = readers(contract, suggested, answers);
    const spent = () => requests;
    const pageSize = observedPageSize(answers);
    const books = await readWhole(
      client,
      contract,
      'rankings',
      chosen.books.read,
      chosen.probed('rankings'),
      spent,
      pageSize,
    );
    const campaigns = await readWhole(
      client,
      contract,
      'reviews',
      chosen.campaigns.read,
      chosen.probed('reviews'),
      spent,
      pageSize,
    );
    // Loosely read ASINs have no marketplace: the config's default applies until the user adds them.
    const byAsin = new Map<string, Set<string>>();
    for (const book of books.items) {
      const markets = byAsin.get(book.asin) ?? new Set<string>();
      if (book.marketplace !== undefined) markets.add(book.marketplace);
      byAsin.set(book.asin, markets);
    }
    const loosely = (loose: boolean, report: ListReport, what: string): ListReport =>
      loose
        ? { ...report, notes: [`the contract cannot read its items yet: ${what}`, ...report.notes] }
        : report;
    return {
      account: { books: byAsin, campaigns: [...new Set(campaigns.items)].sort() },
      lists: [
        loosely(chosen.books.loose, books.report, 'the ASINs are the ASIN-shaped values of each item'),
        loosely(
          chosen.campaigns.loose,
          campaigns.report,
          'the campaigns are read at the path probe suggested for reviews.campaignId',
        ),
      ],
    };
  } finally {
    await client.close();
  }
}

const LIST_LABEL = {
  rankings: { what: 'books', endpoint: 'GET /v1/rankings' },
  reviews: { what: 'ARC campaigns', endpoint: 'GET /v1/arc/reviews' },
} as const;

/** What reading the lists cost, one line a list (and its notes), for init's output. */
export function reportLists(lists: readonly ListReport[]): { text: string; requests: number } {
  const lines: string[] = [];
  let requests = 0;
  for (const report of lists) {
    const { what, endpoint } = LIST_LABEL[report.list];
    requests += report.requests;
    const cost =
      report.requests === 0
        ? "the probe's answer, no more request"
        : `${report.requests} more ${report.requests === 1 ? 'request' : 'requests'}`;
    lines.push(`${what}: ${report.pages} ${report.pages === 1 ? 'page' : 'pages'} of ${endpoint} (${cost})`);
    for (const note of report.notes) lines.push(`  ${note}`);
  }
  return { text: `${lines.join('\n')}\n`, requests };
}
