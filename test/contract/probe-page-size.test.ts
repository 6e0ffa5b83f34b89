/** observedPageSize (src/tools/probe/probe-tail.ts): init's "full page" warning uses the page size the API showed. */
import { describe, expect, it } from 'vitest';
import { observedPageSize, type RecordedAnswer } from '../../src/tools/probe/index.ts';

const answer = (endpoint: RecordedAnswer['endpoint'], body: unknown, headers: Record<string, string> = {}) =>
  ({ endpoint, method: 'GET', path: '/v1/x', status: 200, headers, body }) as RecordedAnswer;
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i }));

describe('observedPageSize', () => {
  it('is the fewest items of a list answer that showed a next page, by any sign', () => {
    expect(
      observedPageSize([
        answer('keywordSearch', { data: items(20), next_cursor: 'abc' }),
        answer('sales', { data: items(2) }, { link: '<https://a.example/v1/sales?page=2>; rel="next"' }),
        answer('reviews', { data: items(5), meta: { total: 9 } }),
      ]),
    ).toBe(2);
  });

  it('is undefined when no answer showed a next page (a last page says nothing of the size)', () => {
    expect(
      observedPageSize([
        answer('rankings', { data: items(2), next_cursor: null }),
        answer('reviews', { data: items(5), meta: { total: 5 } }),
      ]),
    ).toBeUndefined();
  });

  it("leaves out a list's last-page answer and refusals", () => {
    const tail = {
      ...answer('bookKeywords', { data: items(1), next: 'x' }),
      page: { style: 'offset', param: 'offset', value: 9 },
    };
    const refused = { ...answer('sales', { data: items(1), next: 'x' }), status: 400 };
    expect(observedPageSize([tail as RecordedAnswer, refused])).toBeUndefined();
  });
});
