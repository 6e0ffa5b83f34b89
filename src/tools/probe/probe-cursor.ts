/**
 * A cursor the contract already reads, without `cursor.alone`: whether the API takes the token beside
 * the first page's filters is not in any first answer, and an API that refuses both (SP-API's
 * nextToken) would refuse every second page of `run`. None of probe's other requests can tell it (its
 * follow-ups ask first pages with other filters, and a refusal there is read as a parameter's name),
 * so it costs one request more, planned and counted against the cap before probe starts: the second
 * page of one list with the token and the filters as the contract sends them; refused naming a
 * filter, one more with the token alone (probe-alone.ts), within the cap.
 */
import {
  type CompiledContract,
  type EndpointName,
  isListEndpoint,
  type ListEndpointName,
} from '../../api/tooling.ts';
import { aloneEvidence, alonePath, filtersRefused } from './probe-alone.ts';
import type { RecordedAnswer } from './probe-analyse.ts';
import { itemsIn, judgeTail, type TailBudget, withParam } from './probe-tail.ts';

type Paging = CompiledContract['pagination']['sales'];

/** The contract's cursor parameter for a list paged by cursor without `alone`; undefined otherwise. */
function cursorParam(paging: Paging): string | undefined {
  if (paging.style !== 'cursor' || paging.tokenAlone) return undefined;
  return Object.keys(paging.query('x', undefined)).find((name) => name !== paging.limitParam);
}

/** Whether a probe of these endpoints asks the second page of a cursor list (one request more). */
export function asksSecondPage(contract: CompiledContract, endpoints: readonly string[]): boolean {
  return endpoints.some(
    (e) =>
      isListEndpoint(e as EndpointName) &&
      cursorParam(contract.pagination[e as ListEndpointName]) !== undefined,
  );
}

/** The first list answer whose next page the contract reads by a cursor it sends beside the filters. */
function firstCursorList(contract: CompiledContract, answers: readonly RecordedAnswer[]) {
  for (const first of answers) {
    if (first.status >= 300 || first.page !== undefined || !isListEndpoint(first.endpoint)) continue;
    const paging = contract.pagination[first.endpoint as ListEndpointName];
    const param = cursorParam(paging);
    if (param === undefined) continue;
    const items = itemsIn(first.body).length;
    const next = paging.next(first.body, first.headers, null, items, items);
    if ('error' in next || next.position === null) continue;
    return { first, param, token: next.position };
  }
  return undefined;
}

/**
 * Asks the second page of the first list the contract pages by a known cursor (not when a cursor's
 * parameter was already learnt by the tail requests): the answer that took the token, marked with
 * what it found (`alone` when only the token alone was taken), added to `answers`.
 */
export async function askCursorAlone(
  contract: CompiledContract,
  answers: RecordedAnswer[],
  budget: TailBudget,
): Promise<void> {
  if (answers.some((a) => a.page?.style === 'cursor')) return;
  const found = firstCursorList(contract, answers);
  if (found === undefined) return;
  const { first, param, token } = found;
  const capped = (what: string): void => {
    budget.unchecked.push(
      `${first.endpoint}: ${what}: the cap of ${budget.max} requests was reached (cursor.alone is unchecked)`,
    );
  };
  if (budget.spent() >= budget.max) return capped('the second page was not asked');
  const beside = await budget.ask(first.endpoint, withParam(first.path, param, token));
  if (judgeTail(first, beside, param) === 'took') {
    answers.push({
      ...beside,
      page: { style: 'cursor', param, value: token },
      evidence: [
        `pagination: ${first.endpoint}'s second page with ${param} and the filters answered the next items: the token goes beside the filters (cursor.alone not needed; 1 request)`,
      ],
    });
    return;
  }
  const refused = filtersRefused(first, beside, param);
  if (refused.length === 0) {
    budget.unchecked.push(
      `${first.endpoint}: the second page with ${param} answered ${beside.status} without the next items: cursor.alone is unchecked`,
    );
    return;
  }
  if (budget.spent() >= budget.max)
    return capped(
      `the second page was refused beside the filters (${refused.join(', ')}) and no request was left to send ${param} alone`,
    );
  const alone = await budget.ask(first.endpoint, alonePath(first, param, token));
  if (judgeTail(first, alone, param) !== 'took') {
    budget.unchecked.push(
      `${first.endpoint}: the second page was refused beside the filters (${refused.join(', ')}) and with ${param} alone answered ${alone.status} without the next items: cursor.alone is unchecked`,
    );
    return;
  }
  answers.push({
    ...alone,
    page: { style: 'cursor', param, value: token, alone: true },
    evidence: [`${aloneEvidence(first, param, refused, beside.status)} (2 requests)`],
  });
}
