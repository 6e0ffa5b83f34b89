/**
 * Several values of one parameter (two ASINs, two keywords) and an answer that holds items for only
 * the first: some APIs read the first of a repeated parameter and say nothing (no 400), so a 200 does
 * not prove that repeated values work. Probe compares what the answer holds with what it asked for,
 * then asks once more with the values comma-joined. Pure.
 */
import type { PlannedParam } from './probe-params.ts';
import { itemsIn } from './probe-tail.ts';

/** Whether some item of the answer holds `value` as a whole string member. */
function holds(items: readonly unknown[], value: string): boolean {
  const quoted = JSON.stringify(value);
  return items.some((item) => (JSON.stringify(item) ?? '').includes(quoted));
}

/** A parameter of several values whose answer held items for the first and not for the others. */
export interface FirstOnly {
  param: PlannedParam;
  /** The values sent that no item holds. */
  missing: string[];
}

/**
 * The parameters sent with several values, not yet comma-joined, whose answer holds items for the
 * first value and for none of some other: read as "the API took only the first".
 */
export function firstOnly(body: unknown, params: readonly PlannedParam[]): FirstOnly[] {
  const items = itemsIn(body);
  const out: FirstOnly[] = [];
  for (const p of params) {
    if (p.values === undefined || p.values.length < 2 || p.list !== undefined) continue;
    const [first, ...rest] = p.values;
    if (first === undefined || !holds(items, first)) continue;
    const missing = rest.filter((v) => !holds(items, v));
    if (missing.length > 0) out.push({ param: p, missing });
  }
  return out;
}

/** Whether an answer holds items for every value of each parameter (the comma-joined retry). */
export function holdsEvery(body: unknown, params: readonly PlannedParam[]): boolean {
  const items = itemsIn(body);
  return params.every((p) => (p.values ?? [p.value]).every((v) => holds(items, v)));
}

/** What the evidence says, for the suggestion's notes. */
export function firstOnlyEvidence(
  endpoint: string,
  found: readonly FirstOnly[],
  joined: 'took' | 'refused',
): string[] {
  return found.map(({ param: p, missing }) => {
    const values = p.values ?? [];
    const repeated = values.map((v) => `${p.name}=${v}`).join('&');
    const seen = `${repeated} answered 200 with items for ${values[0]} only (none for ${missing.join(', ')}): the API reads the first of repeated values`;
    return joined === 'took'
      ? `${endpoint}.${p.param}: ${seen}; comma-joined (${p.name}=${values.join(',')}) it answered items for each: list: comma`
      : `${endpoint}.${p.param}: ${seen}, and comma-joined it did not answer items for each either: kept as the contract says; find in the API document how several values go (one a request otherwise)`;
  });
}
