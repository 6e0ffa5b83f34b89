import type { OffTopic } from './pagination.ts';

/**
 * One filter a list request sent and the item field it filters on: `asked` is the value (or the
 * repeatable values) in the query, undefined when the filter was not sent.
 */
export type FilterCheck<T> = readonly [
  name: string,
  asked: string | readonly string[] | undefined,
  field: (item: T) => string,
];

/**
 * What `paginate` checks each item against: every filter that was sent must hold for the item, or
 * the item is about something else (`campaign camp-2`), and the answer is refused.
 */
export function offTopicBy<T>(checks: readonly FilterCheck<T>[]): OffTopic<T> {
  const sent = checks.flatMap(([name, asked, field]) => {
    if (asked === undefined) return [];
    const allowed = new Set(typeof asked === 'string' ? [asked] : asked);
    return allowed.size === 0 ? [] : [{ name, allowed, field }];
  });
  return (item) => {
    for (const { name, allowed, field } of sent) {
      const value = field(item);
      if (!allowed.has(value)) return `${name} ${JSON.stringify(value)}`;
    }
    return null;
  };
}

/**
 * A date filter (`from`..`to`, both included, `YYYY-MM-DD`, which sorts as text): an item dated
 * outside it is about another time than was asked (`date "2026-10-01"`), and with `also` every
 * other check must hold too.
 */
export function outsideDates<T>(
  from: string,
  to: string,
  date: (item: T) => string,
  also: OffTopic<T> = () => null,
): OffTopic<T> {
  return (item) => {
    const value = date(item);
    if (value < from || value > to) return `date ${JSON.stringify(value)}`;
    return also(item);
  };
}
