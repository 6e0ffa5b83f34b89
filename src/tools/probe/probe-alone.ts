/**
 * A page token that must be sent without the other filters (`cursor.alone`): the second-page request
 * (the first page's query with the token added) is answered 400 naming a filter we sent, so probe asks
 * once more with the token alone (and the page size, as the client sends it). Pure.
 */
import type { RecordedAnswer } from './probe-analyse.ts';

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The page-size parameter's name in the first page's query, as probe sent it. */
function limitName(first: RecordedAnswer): string | undefined {
  return first.params?.find((p) => p.param === 'limit')?.name;
}

/**
 * The filters of the first page's query (neither the token nor the page size) that a 400 or 422 to
 * the second page names: empty when the refusal is about something else (or there was none).
 */
export function filtersRefused(first: RecordedAnswer, answer: RecordedAnswer, token: string): string[] {
  if (answer.status !== 400 && answer.status !== 422) return [];
  const limit = limitName(first);
  const query = new URLSearchParams(first.path.split('?')[1] ?? '');
  const names = [...new Set(query.keys())].filter((n) => n !== token && n !== limit);
  const text = JSON.stringify(answer.body) ?? '';
  return names.filter((n) => new RegExp(`(^|[^\\w])${literal(n)}([^\\w]|$)`).test(text));
}

/** The second page asked with the token alone: the first page's path, its page size, the token. */
export function alonePath(first: RecordedAnswer, token: string, value: string): string {
  const [base, query = ''] = first.path.split('?');
  const limit = limitName(first);
  const size = limit === undefined ? null : new URLSearchParams(query).get(limit);
  const params = new URLSearchParams();
  if (limit !== undefined && size !== null) params.set(limit, size);
  params.set(token, value);
  return `${base}?${params.toString()}`;
}

/** The note the suggestion carries for `alone: true`. */
export function aloneEvidence(
  first: RecordedAnswer,
  token: string,
  refused: readonly string[],
  status: number,
): string {
  return `pagination: ${first.endpoint}'s second page with ${token} and the filters answered ${status} naming ${refused.join(', ')}; with ${token} alone it answered the next items: cursor.alone: true (the token is sent without the filters)`;
}
