/**
 * The requests `probe` makes: one per read endpoint, in an order that finds a real ASIN (from the
 * rankings, which list the account's books) before the book endpoints need one, and a follow-up of
 * the rankings and reviews with the filters their first answers gave values for; a parameter the API
 * refuses is asked again under other names, within a cap. Every request first passes
 * `beforeRequest` (the workspace's budget). A service that cannot be the API
 * (unreachable, refusing the key, answering HTML) stops the probe at that request.
 */
import type { CompiledContract, EndpointName, RequestDone } from '../../api/tooling.ts';
import { keyUrlOrThrow } from '../../util/key-url.ts';
import type { RecordedAnswer } from './probe-analyse.ts';
import { askCursorAlone } from './probe-cursor.ts';
import { request } from './probe-http.ts';
import { type FirstOnly, firstOnly, firstOnlyEvidence, holdsEvery } from './probe-lists.ts';
import {
  formatCandidates,
  NAME_CANDIDATES,
  type ParamFinding,
  type PlannedParam,
  type ProbeParam,
  queryPairs,
  readRefusal,
} from './probe-params.ts';
import {
  DEFAULT_MAX_PROBE_REQUESTS,
  findAsin,
  findCampaign,
  keepaTimeIn,
  type Planned,
  PROBED_ENDPOINTS,
  type ProbedEndpoint,
  plan,
  plannedEndpoints,
} from './probe-plan.ts';
import { askTails, type TailBudget } from './probe-tail.ts';

export interface ProbeOptions {
  baseUrl: string;
  apiKey: string;
  /** The workspace's `allowInsecure` (util/key-url.ts: plain http off this machine only with it). */
  allowInsecure?: boolean;
  contract: CompiledContract;
  endpoints: readonly ProbedEndpoint[];
  /** A real ASIN; without it the rankings answer gives one. */
  asin?: string;
  /** The day the probe runs (UTC), for the sales and rankings windows. */
  now: number;
  /** Takes one request from the budget; throws when there is none. */
  /** The budget's grant before each request; what it hands back is called once the answer is in. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a budget hook that hands nothing back is allowed (init counts only)
  beforeRequest: () => Promise<RequestDone | void>;
  timeoutMs?: number;
  /** The most requests the probe may spend, parameter names tried again included (default 30). */
  maxRequests?: number;
  /** Filled with what the probe did not check because the cap was reached or the API refused every name. */
  unchecked?: string[];
}

export { ProbeError, type ProbeFailureKind } from './probe-http.ts';

const TIMES = new Set<ProbeParam>(['from', 'to', 'since']);
/** Parameters an API names alike on every endpoint: a name refused once is not tried again. */
const SHARED_NAMES = new Set<ProbeParam>(['marketplace']);

/**
 * Asks one planned request; while the API refuses a parameter it names, asks again with the next
 * name (or, for a time whose name it knew, the next format), and adds what it says is required.
 */
async function ask(
  options: ProbeOptions,
  planned: Planned,
  state: {
    spent: number;
    max: number;
    learnt: Map<ProbeParam, string>;
    keepa: boolean;
    /** The API's refusals, kept: they show its error body. */
    refusals: RecordedAnswer[];
    /** Names the API refused as names (not for their value), by parameter: not asked again elsewhere. */
    refused: Map<ProbeParam, Set<string>>;
  },
): Promise<RecordedAnswer | undefined> {
  const unchecked = options.unchecked ?? [];
  const params: PlannedParam[] = [];
  for (const planned_ of planned.params) {
    const p = { ...planned_ };
    const refused = state.refused.get(p.param);
    if (refused?.has(p.name)) {
      const next = NAME_CANDIDATES[p.param].find((n) => !refused.has(n));
      if (next === undefined) continue;
      p.name = next;
    }
    params.push(p);
  }
  const fixed: Record<string, string> = Object.fromEntries(options.contract.queries[planned.endpoint].fixed);
  const tried = new Map<ProbeParam, Set<string>>(params.map((p) => [p.param, new Set([p.name])]));
  const formats = new Map<ProbeParam, number>();
  let last: RecordedAnswer | undefined;
  // Values the API read only the first of, asked again comma-joined (probe-lists.ts).
  let firstOnlySeen: { found: FirstOnly[]; answer: RecordedAnswer } | undefined;
  for (;;) {
    if (state.spent >= state.max) {
      unchecked.push(
        `${planned.endpoint}: not ${last === undefined ? 'asked' : 'asked again'}: the cap of ${state.max} requests was reached${last === undefined ? '' : ` (its parameters ${params.map((p) => p.param).join(', ')} are unchecked)`}`,
      );
      return last;
    }
    const query = queryPairs(params, fixed);
    const path =
      query.length === 0 ? planned.path : `${planned.path}?${new URLSearchParams(query).toString()}`;
    const answer = await granted(options, state, () => request(options, planned.endpoint, path));
    const findings: ParamFinding[] = params.map((p) => ({
      param: p.param,
      name: p.name,
      ...(p.format === undefined ? {} : { format: p.format }),
      ...(p.epoch === undefined ? {} : { epoch: p.epoch }),
      ...(p.list === undefined ? {} : { list: p.list }),
    }));
    last = { ...answer, params: findings, fixed: { ...fixed } };
    if (firstOnlySeen !== undefined) {
      const { found, answer: repeated } = firstOnlySeen;
      const joined =
        answer.status < 300 &&
        holdsEvery(
          answer.body,
          found.map((f) => f.param),
        );
      last.evidence = firstOnlyEvidence(planned.endpoint, found, joined ? 'took' : 'refused');
      if (!joined) {
        // Comma-joined did not do either: the repeated answer is kept, as the contract says.
        for (const f of found) delete f.param.list;
        return { ...repeated, evidence: last.evidence };
      }
    } else if (answer.status < 300) {
      const found = firstOnly(answer.body, params);
      if (found.length > 0) {
        for (const f of found) f.param.list = 'comma';
        firstOnlySeen = { found, answer: last };
        continue;
      }
    }
    if (answer.status !== 400 && answer.status !== 422) {
      if (answer.status < 300) for (const p of params) state.learnt.set(p.param, p.name);
      return last;
    }
    // One refusal kept is enough to show the error body; the rest would only repeat it.
    if (state.refusals.length === 0) state.refusals.push(last);
    const refusal = readRefusal(answer.body, params);
    const needed = Object.entries(refusal.required).filter(([name]) => fixed[name] === undefined);
    if (needed.length > 0) {
      Object.assign(fixed, Object.fromEntries(needed));
      continue;
    }
    const blamed = refusal.blamed;
    const p = params.find((q) => q.param === blamed?.param);
    if (blamed === undefined || p === undefined) return last;
    if (blamed.list === true && p.list === undefined) {
      p.list = 'comma';
      continue;
    }
    if (blamed.value && TIMES.has(p.param)) {
      const date = planned.endpoint === 'sales';
      const choices = formatCandidates(date, state.keepa);
      const next = (formats.get(p.param) ?? 0) + 1;
      const choice = choices[next];
      if (choice !== undefined) {
        // From and to of one endpoint share a format.
        for (const q of params.filter((q) => TIMES.has(q.param))) {
          formats.set(q.param, next);
          q.format = choice.format;
          if (choice.epoch === undefined) delete q.epoch;
          else q.epoch = choice.epoch;
        }
        continue;
      }
    }
    const seen = tried.get(p.param) ?? new Set();
    const refused = state.refused.get(p.param) ?? new Set<string>();
    // A marketplace name refused as unknown is unknown on every endpoint (one refused for its value
    // is not); other names may differ by endpoint (rankings' from, sales' startDate).
    if (!blamed.value && SHARED_NAMES.has(p.param)) refused.add(p.name);
    state.refused.set(p.param, refused);
    const name = NAME_CANDIDATES[p.param].find((n) => !seen.has(n) && !refused.has(n));
    if (name !== undefined) {
      seen.add(name);
      tried.set(p.param, seen);
      p.name = name;
      continue;
    }
    unchecked.push(
      `${planned.endpoint}: the API refused ${p.param} under every name tried (${[...seen].join(', ')}): left out; find its name in the API document`,
    );
    params.splice(params.indexOf(p), 1);
  }
}

/**
 * Probes the picked endpoints, each once if the API takes the parameters as the contract names
 * them; a refused parameter is tried under other names (see probe-params.ts) within `maxRequests`.
 */
export async function probeService(options: ProbeOptions): Promise<RecordedAnswer[]> {
  // The key goes with every request: refused here, before the first one and before any budget is taken.
  keyUrlOrThrow(options.baseUrl, { allowInsecure: options.allowInsecure === true });
  const answers: RecordedAnswer[] = [];
  const state = {
    spent: 0,
    max: options.maxRequests ?? DEFAULT_MAX_PROBE_REQUESTS,
    learnt: new Map<ProbeParam, string>(),
    keepa: false,
    refusals: [] as RecordedAnswer[],
    refused: new Map<ProbeParam, Set<string>>(),
  };
  let asin = options.asin;
  let campaign: string | undefined;
  const run = async (endpoint: ProbedEndpoint, followUp: boolean) => {
    state.keepa ||= keepaTimeIn(answers);
    const known = { asin: asin ?? '', followUp, answers, ...(campaign === undefined ? {} : { campaign }) };
    const answer = await ask(
      options,
      plan(endpoint, options.contract, known, options.now, state.learnt),
      state,
    );
    if (answer === undefined) return;
    asin ??= answer.status < 400 ? findAsin(answer.body) : undefined;
    campaign ??= answer.status < 400 && endpoint === 'reviews' ? findCampaign(answer.body) : undefined;
    answers.push(answer);
  };
  const planned = plannedEndpoints(options.endpoints, options.asin);
  for (const endpoint of planned) {
    if ((endpoint === 'book' || endpoint === 'bookKeywords') && asin === undefined) continue;
    await run(endpoint, false);
  }
  // The filters that need a value from an answer: a book's window of rankings, one campaign's reviews.
  if (planned.includes('rankings') && asin !== undefined) await run('rankings', true);
  if (planned.includes('reviews') && campaign !== undefined) await run('reviews', true);
  // Last or second pages: the page parameter's name and the tail's "no rank" values (probe-tail.ts).
  const budget: TailBudget = {
    spent: () => state.spent,
    max: state.max,
    unchecked: options.unchecked ?? [],
    ask: (endpoint, path) =>
      granted(options, state, () => request(options, endpoint as ProbedEndpoint, path)),
  };
  await askTails(answers, options.contract.source, budget);
  // A cursor the contract reads but may send beside the filters: one request more (probe-cursor.ts).
  await askCursorAlone(options.contract, answers, budget);
  return [...answers, ...state.refusals.filter((r) => !answers.includes(r))];
}

/** One request through the budget: granted, counted, sent, and stamped when its answer is in. */
async function granted<T>(
  options: Pick<ProbeOptions, 'beforeRequest'>,
  state: { spent: number },
  send: () => Promise<T>,
): Promise<T> {
  const stamp = await options.beforeRequest();
  state.spent += 1;
  try {
    return await send();
  } finally {
    await stamp?.();
  }
}

/** Endpoints named on the command line, checked. */
export function parseEndpoints(names: readonly string[]): ProbedEndpoint[] | { unknown: string } {
  const out: ProbedEndpoint[] = [];
  for (const name of names.flatMap((n) => n.split(','))) {
    const found = PROBED_ENDPOINTS.find((e) => e === name.trim());
    if (found === undefined) return { unknown: name };
    out.push(found);
  }
  return out;
}

export {
  DEFAULT_MAX_PROBE_REQUESTS,
  findAsin,
  PROBED_ENDPOINTS,
  type ProbedEndpoint,
  plannedEndpoints,
  plannedRequests,
} from './probe-plan.ts';
export type { EndpointName };
