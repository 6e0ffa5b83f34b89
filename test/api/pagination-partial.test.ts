/**
 * The walk of a list never reads a partial or foreign answer as the list (issue #11 items 7, 8):
 * the shared mechanism every list endpoint goes through, checked page by page.
 */
import { describe, expect, it } from 'vitest';
import { collectAll, SchemaMismatchError } from '../../src/api/index.ts';
import { offTopicBy } from '../../src/api/off-topic.ts';
import { paginate } from '../../src/api/pagination.ts';
import type { ListPage } from '../../src/api/schemas.ts';

type Item = { id: string; about: string };
const item = (id: string, about = 'asked'): Item => ({ id, about });

/** Pages served by cursor: page n is `pages[n]`; `next_cursor` is the next page's index. */
function walk(pages: ListPage<Item>[], offTopic?: (i: Item) => string | null) {
  return collectAll(
    paginate<Item>(
      'GET /v1/test',
      async (cursor) => {
        const page = pages[cursor === null ? 0 : Number(cursor)];
        if (page === undefined) throw new Error(`no page ${cursor}`);
        return { data: page, meta: { status: 200, rateLimit: {}, attempts: 1 } };
      },
      null,
      offTopic,
    ),
  );
}

async function refusal(promise: Promise<unknown>): Promise<SchemaMismatchError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SchemaMismatchError);
  return error as SchemaMismatchError;
}

describe('paginate: incomplete walks', () => {
  it('an empty page asked for with a cursor is incomplete_list, not the end of the list', async () => {
    const error = await refusal(
      walk([
        { data: [item('a'), item('b')], next_cursor: '1' },
        { data: [], next_cursor: null },
      ]),
    );
    expect(error).toMatchObject({ code: 'incomplete_list', retryable: false });
    expect(error.message).toMatch(/page 1: no items on a page asked for with a cursor/);
  });

  it('an empty first page is an empty list (no cursor was given)', async () => {
    expect((await walk([{ data: [], next_cursor: null }])).items).toEqual([]);
  });

  it('a walk ending below a stated total is incomplete_list; reaching it (or above, duplicates) is fine', async () => {
    const pages = (total: number): ListPage<Item>[] => [
      { data: [item('a'), item('b')], next_cursor: '1', total },
      { data: [item('c')], next_cursor: null, total },
    ];
    expect((await refusal(walk(pages(4)))).message).toMatch(/ended with 3 items of the 4 stated/);
    expect((await walk(pages(3))).items).toHaveLength(3);
    expect((await walk(pages(2))).items).toHaveLength(3);
  });
});

describe('paginate: foreign items', () => {
  it('one item about something else than was asked fails the walk with foreign_item', async () => {
    const offTopic = (i: Item) => (i.about === 'asked' ? null : `campaign ${i.about}`);
    const error = await refusal(
      walk(
        [
          { data: [item('a')], next_cursor: '1' },
          { data: [item('b'), item('c', 'other')], next_cursor: null },
        ],
        offTopic,
      ),
    );
    expect(error).toMatchObject({ code: 'foreign_item', issues: [{ path: 'data[1]' }] });
    expect(error.message).toMatch(/page 1: the item is about campaign other, not what was asked/);
    expect((await walk([{ data: [item('a')], next_cursor: null }], offTopic)).items).toHaveLength(1);
  });

  it('offTopicBy checks every filter that was sent, repeatable ones as a set, and ignores the rest', () => {
    type Series = { asin: string; keyword: string };
    const about = offTopicBy<Series>([
      ['ASIN', ['B000000001', 'B000000002'], (x) => x.asin],
      ['keyword', undefined, (x) => x.keyword],
    ]);
    expect(about({ asin: 'B000000002', keyword: 'anything' })).toBeNull();
    expect(about({ asin: 'B000000003', keyword: 'tea' })).toBe('ASIN "B000000003"');
    expect(offTopicBy<Series>([['ASIN', [], (x) => x.asin]])({ asin: 'B0', keyword: '' })).toBeNull();
  });
});
