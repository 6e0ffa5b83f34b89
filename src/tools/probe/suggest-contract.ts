/**
 * The contract file `probe` proposes: from the recorded answers, where each logical field most
 * likely is (the analysis's best candidate), in which format (from the value found), where the
 * object or list is, the pagination style and the rate-limit headers. What one answer cannot tell
 * (which value means "no rank", our name for an unknown marketplace id, query parameter names) is
 * said, not guessed. Pure.
 */

import {
  CATALOG,
  type CompiledContract,
  type ContractFile,
  type EndpointName,
  type FieldSpec,
  isListEndpoint,
  type ListEndpointName,
  type ObjectNode,
} from '../../api/tooling.ts';
import {
  analyseAnswer,
  candidatesFor,
  expanded,
  fieldFits,
  type RecordedAnswer,
  valueAt,
  words,
} from './probe-analyse.ts';
import { paramChanges, paramSections } from './probe-params.ts';
import { enumsOf } from './suggest-enums.ts';
import { finalitySpec, historyLayout } from './suggest-evidence.ts';
import { asObject, type Ctx, extrasOf, FILTERS_NOT_ASKED, newCtx, sample, specAt } from './suggest-fields.ts';
import { keepUsersSections } from './suggest-merge.ts';
import { moneyHints } from './suggest-money.ts';
import { suggestMonthWhen } from './suggest-month.ts';
import { pagingMisfits } from './suggest-paging-fit.ts';
import { headersOf, paginationOf, suggestPagination } from './suggest-wire.ts';

export interface Suggestion {
  /** What differs from the probed contract, as a contract file (merged over the probed one). */
  contract: ContractFile;
  /** Edits a person has to decide, one line each. */
  undecided: string[];
  /** Query parameters the API took under another name or format than the contract's (paramChanges). */
  paramChanges: string[];
  /** Lists whose next page the contract would not follow: `run` would read their first page only. */
  pagingChanges: string[];
}

/** Suggested specs for an object's fields; `changed` says whether any differs from `specs`. */
function suggestObject(
  node: ObjectNode,
  container: unknown,
  siblings: readonly unknown[],
  specs: Readonly<Record<string, FieldSpec>>,
  where: string,
  ctx: Ctx,
): { specs: Record<string, FieldSpec>; changed: boolean } {
  const out: Record<string, FieldSpec> = {};
  let changed = false;
  const taken = new Set<string>();
  for (const field of node.fields) {
    const old = asObject(specs[field.name]);
    const here = `${where}.${field.name}`;
    const value = valueAt(container, field.rawPath);
    const fine = fieldFits(field, container);
    let path = field.rawPath;
    if (!fine || field.items !== undefined) {
      if (!fine && value === undefined) {
        const found = candidatesFor(field.name, field.kind, container, taken);
        const best = found[0];
        const named = best !== undefined && words(best).some((w) => expanded(field.name).has(w));
        if (best !== undefined && !named && found.length > 1 && !Array.isArray(container)) {
          out[field.name] = specs[field.name] ?? field.rawPath;
          ctx.undecided.push(
            `${here}: not found; by type it could be ${found
              .slice(0, 4)
              .map((p) => `"${p}"`)
              .join(', ')} (kept "${field.rawPath}")`,
          );
          continue;
        }
        if (best === undefined) {
          out[field.name] = specs[field.name] ?? field.rawPath;
          ctx.undecided.push(
            `${here}: not found in the answer and nothing there looks like it (kept "${field.rawPath}")`,
          );
          continue;
        }
        path = best;
      }
    }
    taken.add(path);
    if (field.items !== undefined) {
      const shape = historyLayout(valueAt(container, path));
      const list = shape?.items;
      const item = Array.isArray(list) && list.length > 0 ? sample(list) : undefined;
      if (item === undefined) {
        out[field.name] = specs[field.name] ?? path;
        if (path !== field.rawPath) out[field.name] = { ...old, path };
        if (!fine) ctx.undecided.push(`${here}: an empty list: its items' fields could not be checked`);
        changed ||= path !== field.rawPath;
        continue;
      }
      const inner = suggestObject(field.items, item, list as unknown[], old.items ?? {}, `${here}[]`, ctx);
      const layout = shape?.layout ?? old.layout;
      changed ||= path !== field.rawPath || inner.changed || layout !== old.layout;
      out[field.name] = { path, ...(layout === undefined ? {} : { layout }), items: inner.specs };
      continue;
    }
    if (fine) {
      const extras = extrasOf(field, path, siblings, old, here, ctx);
      out[field.name] = specs[field.name] ?? path;
      if (Object.keys(extras).length > 0) {
        out[field.name] = { ...old, path, ...extras };
        changed = true;
      }
      if (field.kind === 'marketplace' && typeof value === 'string') ctx.marketplaces.add(value);
      if (field.kind === 'platform' && typeof value === 'string') ctx.platforms.add(value);
      continue;
    }
    out[field.name] = specAt(field, path, container, siblings, old, here, ctx);
    changed = true;
  }
  return { specs: out, changed };
}

/** Paths in the body that could hold the endpoint's object (or list): the contract's first. */
function rootChoices(body: unknown, current: string, list: boolean, firstOfList = false): string[] {
  const out = [current];
  const visit = (value: unknown, prefix: string, depth: number) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 0) return;
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      const fits = list
        ? Array.isArray(child) && typeof child[0] === 'object' && child[0] !== null
        : typeof child === 'object' && child !== null && !Array.isArray(child);
      if (fits && !out.includes(path)) out.push(path);
      // An error body may be a list of errors (`errors: [{code, message}]`): its first is read.
      if (firstOfList && Array.isArray(child) && typeof child[0] === 'object' && child[0] !== null)
        out.push(`${path}.0`);
      visit(child, path, depth - 1);
    }
  };
  if (!list && !out.includes('')) out.push('');
  visit(body, '', 3);
  return out;
}

function suggestEndpoint(
  contract: CompiledContract,
  answer: RecordedAnswer,
  ctx: Ctx,
): Record<string, unknown> | undefined {
  const name = answer.endpoint;
  const list = isListEndpoint(name);
  const current = contract.roots[name];
  // The root where most fields are found or have a candidate; among equals, the one whose
  // candidates are nearest (`result` rather than '' with every path starting `result.`).
  let best = { root: current, score: Number.NEGATIVE_INFINITY };
  for (const root of rootChoices(answer.body, current, list, name === 'error')) {
    const rows = analyseAnswer(contract, answer, list, root).rows;
    let score = 0;
    for (const r of rows) {
      if (r.status === 'found') score += 2;
      else if (r.candidates[0] !== undefined) score += 1 - 0.01 * r.candidates[0].split('.').length;
    }
    if (score > best.score) best = { root, score };
  }
  const at = valueAt(answer.body, best.root);
  const container = list ? (Array.isArray(at) && at.length > 0 ? sample(at) : undefined) : at;
  const siblings = list && Array.isArray(at) ? at : [at];
  if (container === undefined) {
    ctx.undecided.push(`${name}: the list was empty or not found: its fields could not be checked`);
    return undefined;
  }
  const specs = (contract.source.endpoints?.[name]?.fields ?? {}) as Record<string, FieldSpec>;
  const marketplace = contract.nodes[name].fields.find((f) => f.kind === 'marketplace');
  ctx.money = moneyHints(answer, container, marketplace?.rawPath ?? 'marketplace');
  const fields = suggestObject(contract.nodes[name], container, siblings, specs, name, ctx);
  if (name === 'sales' && specs.final === undefined) {
    const taken = new Set(Object.values(fields.specs).map((spec) => asObject(spec).path.split('.')[0] ?? ''));
    const state = finalitySpec(container, siblings, taken);
    if (state !== undefined) {
      fields.specs.final = state.spec;
      fields.changed = true;
      Object.assign(ctx.salesStatus, state.enums);
      ctx.undecided.push(
        `sales.final: a day's state read from "${state.spec.path}" (${state.spec.format}${state.enums === undefined ? '' : `: ${Object.keys(state.enums).join(', ')}, a state not seen offered by its usual word`}): check which value means final`,
      );
    }
  }
  if (!fields.changed && best.root === current) return undefined;
  return { [list ? 'items' : 'root']: best.root, fields: fields.specs };
}

/** The contract file that would fit the recorded answers, and what a person must still decide. */
export function suggestContract(contract: CompiledContract, answers: readonly RecordedAnswer[]): Suggestion {
  // A list's last page (probe-tail.ts) only adds evidence: its endpoint is suggested from its first page.
  const tails = answers.filter((a) => a.status < 400 && a.page !== undefined);
  const ok = answers.filter((a) => a.status < 400 && a.page === undefined);
  // A first pass finds how the API says "no rank" anywhere, for the ranks whose own answer shows none.
  const first = newCtx();
  for (const answer of ok) suggestEndpoint(contract, answer, first);
  const inFirstPages = first.sentinels.get('missing');
  for (const answer of tails) suggestEndpoint(contract, answer, first);
  const missingAt = first.sentinels.get('missing');
  const tail = tails.find((a) => a.endpoint === 'bookKeywords')?.page;
  const learnt = tails.flatMap((a) => (a.page === undefined ? [] : [a.page]));
  const where =
    inFirstPages !== undefined || missingAt === undefined || tail === undefined
      ? (missingAt ?? '')
      : `${missingAt} on the list's last page, ${tail.param}=${tail.value}`;
  const ctx = newCtx(missingAt === undefined ? [] : ['missing'], where);
  const endpoints: Record<string, unknown> = {};
  for (const answer of ok) {
    const spec = suggestEndpoint(contract, answer, ctx);
    if (spec !== undefined) endpoints[answer.endpoint] = spec;
  }
  const lists = ok.filter((a): a is RecordedAnswer & { endpoint: ListEndpointName } =>
    isListEndpoint(a.endpoint),
  );
  const pagination = suggestPagination(contract, lists, ctx.undecided, learnt);
  for (const [name, own] of pagination.own)
    endpoints[name] = { ...(endpoints[name] as object | undefined), pagination: own };
  // Book keywords are one object, but their list may come in pages: the answer shows it or not.
  const keywords = ok.find((a) => a.endpoint === 'bookKeywords');
  const keywordPages =
    keywords === undefined ? undefined : paginationOf(contract, keywords, ctx.undecided, learnt);
  if (keywordPages !== undefined && Object.keys(keywordPages).length > 0)
    endpoints.bookKeywords = { ...(endpoints.bookKeywords as object | undefined), pagination: keywordPages };
  const error = answers.find((a) => a.status >= 400 && typeof a.body === 'object' && a.body !== null);
  if (error !== undefined) {
    const spec = suggestEndpoint(contract, { ...error, endpoint: 'error' }, ctx);
    if (spec !== undefined) endpoints.error = spec;
  } else
    ctx.undecided.push('error: no error answer was recorded: the error body is kept as the contract says');
  for (const name of Object.keys(CATALOG) as EndpointName[]) {
    if (name !== 'error' && !answers.some((a) => a.endpoint === name))
      ctx.undecided.push(`${name}: not probed (no answer recorded): kept as the contract says`);
  }
  const suggestion: ContractFile = { version: 1 };
  const enums = enumsOf(ctx);
  if (Object.keys(enums).length > 0) suggestion.enums = enums;
  if (pagination.shared !== undefined) suggestion.pagination = pagination.shared;
  const asked = ok.filter((a) => a.params !== undefined);
  const changes: string[] = [];
  // A token the API refused beside the filters: every list's second page would be refused.
  if (learnt.some((f) => f.alone === true) && contract.source.pagination?.cursor?.alone !== true)
    changes.push('pagination.cursor.alone: true (the token refused beside the filters)');
  if (asked.length === 0)
    ctx.undecided.push(
      'params: query parameter names cannot be seen in answers: check them in the API document (kept as the contract says)',
    );
  else {
    const found = paramSections(
      contract,
      asked.map((a) => {
        const own = new Map(contract.queries[a.endpoint].fixed);
        const fixed = Object.fromEntries(Object.entries(a.fixed ?? {}).filter(([k, v]) => own.get(k) !== v));
        return { endpoint: a.endpoint, params: a.params ?? [], fixed };
      }),
    );
    changes.push(...paramChanges(found));
    for (const [name, own] of Object.entries(found.endpoints)) {
      const spec = (endpoints[name] ?? {}) as Record<string, unknown>;
      endpoints[name] = { ...spec, ...own };
    }
    if (Object.keys(found.top).length > 0)
      suggestion.params = { ...suggestion.params, ...found.top } as ContractFile['params'];
    if (found.limit !== undefined) {
      const users = contract.source.pagination?.limit;
      suggestion.pagination = { ...suggestion.pagination, limit: { ...users, param: found.limit } };
    }
    ctx.undecided.push(
      ...found.undecided,
      `params: names and formats as the API took them (${[...new Set(asked.flatMap((a) => (a.params ?? []).map((p) => p.param)))].join(', ')}); the others (${FILTERS_NOT_ASKED.filter((f) => !asked.some((a) => a.params?.some((p) => p.param === f))).join(', ')}) are kept as the contract says`,
    );
  }
  if (ctx.unseenRanks.size > 0)
    ctx.undecided.push(
      `no "no rank" value was in any answer for ${[...ctx.unseenRanks].join(', ')}: offered [null, 0, -1], which no rank can be; add "missing" where the API leaves the member out for a book or keyword without a rank`,
    );
  // What answers showed beyond their fields (values read only for the first, a token sent alone).
  ctx.undecided.push(...answers.flatMap((a) => a.evidence ?? []));
  keepUsersSections(contract.source, suggestion, endpoints);
  // After the user's errors section: the rule replaces theirs whole (a path and a header at once is refused).
  const monthWhen = suggestMonthWhen(contract, answers, ctx.undecided);
  if (monthWhen !== undefined) suggestion.errors = { ...suggestion.errors, monthWhen };
  if (Object.keys(endpoints).length > 0) suggestion.endpoints = endpoints as ContractFile['endpoints'];
  const wire = headersOf(contract, answers, ctx.undecided);
  if (wire.rateLimit !== undefined) suggestion.rateLimit = { ...suggestion.rateLimit, ...wire.rateLimit };
  if (wire.requestIdHeader !== undefined) suggestion.requestIdHeader = wire.requestIdHeader;
  if (wire.requestIdBody !== undefined) suggestion.requestIdBody = wire.requestIdBody;
  return {
    contract: suggestion,
    undecided: [...new Set(ctx.undecided)],
    paramChanges: changes,
    pagingChanges: pagingMisfits(contract, answers),
  };
}
