/**
 * Book keywords that come in pages (`endpoints.bookKeywords.pagination`): each page read by the
 * contract, the pages merged, and only then the whole held to the limits (at most 1,000 keywords in
 * all), so a rank on page 2 is read like one on page 1 and a list too long across pages is refused.
 */
import type { BodyReader } from './contract/compile.ts';
import { SchemaMismatchError } from './errors.ts';
import { BOOK_KEYWORDS_MAX, type BookKeyword, type BookKeywords, bookKeywordsValidator } from './schemas.ts';
import type { ApiResponse, Page } from './types.ts';

export interface KeywordPageReader {
  reader: BodyReader<BookKeyword[]>;
  /** The ASIN the first page named. */
  asin(): string | undefined;
}

/** One page of a keywords answer as a list page: its keywords, the ASIN kept aside. */
export function keywordsOfPage(read: BodyReader<BookKeywords>): KeywordPageReader {
  let asin: string | undefined;
  return {
    reader(body) {
      const page = read(body);
      if (!page.ok) return page;
      asin ??= page.data.asin;
      return { ok: true, data: page.data.data };
    },
    asin: () => asin,
  };
}

/** Walks every page and answers the merged keywords with the request's counts (every page's attempts). */
export async function mergeKeywordPages(
  endpoint: string,
  pages: AsyncIterable<Page<BookKeyword>>,
  reader: KeywordPageReader,
): Promise<ApiResponse<BookKeywords>> {
  const items: BookKeyword[] = [];
  let last: Page<BookKeyword>['meta'] | undefined;
  let attempts = 0;
  for await (const page of pages) {
    items.push(...page.items);
    attempts += page.meta.attempts;
    last = page.meta;
  }
  if (last === undefined) throw new TypeError(`${endpoint}: no page was read`);
  const { page: _page, ...meta } = last;
  const merged = bookKeywordsValidator.safeParse({ asin: reader.asin(), data: items });
  if (!merged.success) {
    throw new SchemaMismatchError(
      `${endpoint}: the pages hold ${items.length} keywords in all, more than the ${BOOK_KEYWORDS_MAX} a book has`,
      {
        ...meta,
        endpoint,
        code: 'schema_mismatch',
        issues: [
          {
            path: '(pages)',
            message: `at most ${BOOK_KEYWORDS_MAX} keywords across pages`,
            field: 'bookKeywords.keywords',
          },
        ],
      },
    );
  }
  return { data: merged.data, meta: { ...meta, attempts } };
}
