/**
 * Query parameter names and formats found from the API's own refusals: a request the API answers
 * 400 or 422 naming a parameter we sent (`invalid_params[].name`, `details[].path`, `errors[].pointer`
 * or the message) is asked again with the next name from a short list, or the next time format
 * when the name was known but its value was not; a parameter the API says is required with its
 * value (`granularity=day is required`) is added as a fixed one. Pure but for the requests the
 * caller makes.
 */
import type { CompiledContract, ContractFile, EndpointName, FilterParam } from '../../api/tooling.ts';

export type ProbeParam = FilterParam | 'limit';
export type TimeFormat = 'iso' | 'date' | 'rfc3339' | 'epoch_s' | 'epoch_ms' | 'epoch_min';

/** What a request found to work for one of our parameters: the API's name and, for times, format. */
export interface ParamFinding {
  param: ProbeParam;
  name: string;
  /** Several values sent as one comma-joined value (the API refused them repeated). */
  list?: 'comma';
  format?: TimeFormat;
  epoch?: string;
}

/** One parameter of a probe's request: ours, its value (times ISO, dates YYYY-MM-DD) and how it is written. */
export interface PlannedParam {
  param: ProbeParam;
  value: string;
  /** Several values (two ASINs): sent repeated, or comma-joined once the API refused that. */
  values?: string[];
  list?: 'comma';
  name: string;
  /** Times and dates only: how the value is written (undefined: as it is). */
  format?: TimeFormat;
  epoch?: string;
}

/** Names APIs give each parameter, most common first; the contract's own name is tried before them. */
export const NAME_CANDIDATES: Readonly<Record<ProbeParam, readonly string[]>> = {
  limit: ['limit', 'perPage', 'per_page', 'pageSize', 'page_size', 'count', 'size', 'maxResults'],
  from: ['from', 'startDate', 'start_date', 'startTime', 'start_time', 'start', 'since', 'dateFrom'],
  to: ['to', 'endDate', 'end_date', 'endTime', 'end_time', 'end', 'until', 'dateTo'],
  since: ['since', 'updatedSince', 'updated_since', 'from', 'after'],
  marketplace: [
    'marketplace',
    'marketplaceId',
    'marketplaceIds',
    'marketplace_id',
    'market',
    'domain',
    'domainId',
    'region',
  ],
  asin: ['asin', 'asins', 'productId', 'product_id', 'productIds'],
  keyword: ['keyword', 'keywords', 'term', 'terms'],
  campaign: ['campaign_id', 'campaignId', 'campaign'],
  query: ['q', 'query', 'searchTerm', 'term', 'search', 'keyword'],
  platform: ['platform', 'source'],
};

const KEEPA_EPOCH = '2011-01-01';

/** Time formats to try after the contract's: counts ordered by what the API's answers already use. */
export function formatCandidates(
  date: boolean,
  keepaSeen: boolean,
): { format: TimeFormat; epoch?: string }[] {
  const counts: { format: TimeFormat; epoch?: string }[] = [
    { format: 'epoch_s' },
    { format: 'epoch_ms' },
    { format: 'epoch_min', epoch: KEEPA_EPOCH },
  ];
  if (keepaSeen) counts.unshift(counts.splice(2, 1)[0] as { format: TimeFormat; epoch?: string });
  return [{ format: date ? 'date' : 'iso' }, { format: date ? 'rfc3339' : 'date' }, ...counts];
}

/** The query a request sends: each parameter (several values repeated, or comma-joined), then the fixed ones. */
export function queryPairs(
  params: readonly PlannedParam[],
  fixed: Record<string, string>,
): [string, string][] {
  return [
    ...params.flatMap((p): [string, string][] =>
      p.values !== undefined && p.values.length > 1
        ? p.list === 'comma'
          ? [[p.name, p.values.join(',')]]
          : p.values.map((v): [string, string] => [p.name, v])
        : [[p.name, writeValue(p.value, p.format, p.epoch)]],
    ),
    ...Object.entries(fixed),
  ];
}

/** A value written in a format (ISO time or a date in; the API's text out). */
export function writeValue(value: string, format: TimeFormat | undefined, epoch?: string): string {
  if (format === undefined || format === 'iso') return value;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  const start = epoch === undefined ? 0 : Date.parse(`${epoch}T00:00:00Z`);
  switch (format) {
    case 'date':
      return new Date(ms).toISOString().slice(0, 10);
    case 'rfc3339':
      return new Date(ms).toISOString().replace('.000Z', 'Z');
    case 'epoch_s':
      return String(Math.floor((ms - start) / 1000));
    case 'epoch_ms':
      return String(ms - start);
    case 'epoch_min':
      return String(Math.floor((ms - start) / 60_000));
  }
}

function strings(value: unknown, out: string[] = [], depth = 6): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'object' && value !== null && depth > 0)
    for (const child of Object.values(value)) strings(child, out, depth - 1);
  return out;
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface Refusal {
  /** The first parameter we sent that the answer names, and whether its value (not its name) was refused. */
  blamed?: { param: ProbeParam; value: boolean; list?: boolean };
  /** Parameters the API says it needs, with the value it names. */
  required: Record<string, string>;
}

/** What a 400/422 answer says about the parameters we sent. */
export function readRefusal(body: unknown, sent: readonly PlannedParam[]): Refusal {
  const texts = strings(body);
  const required: Record<string, string> = {};
  for (const text of texts) {
    for (const m of text.matchAll(/\b([A-Za-z_][\w.-]*)=([\w.-]+) is required/g))
      if (m[1] !== undefined && m[2] !== undefined) required[m[1]] = m[2];
  }
  // Details items: { name|path|field|pointer, reason|message|detail } side by side.
  const items: { name: string; why: string }[] = [];
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || depth === 0) return;
    if (!Array.isArray(value)) {
      const entries = Object.entries(value).filter(([, v]) => typeof v === 'string') as [string, string][];
      const name = entries.find(([k]) => /^(name|path|field|param|parameter|pointer|loc)$/i.test(k))?.[1];
      const why = entries.find(([k]) => /^(reason|message|detail|msg|description)$/i.test(k))?.[1];
      if (name !== undefined) items.push({ name: name.replace(/^.*[/.]/, ''), why: why ?? '' });
    }
    for (const child of Object.values(value)) visit(child, depth - 1);
  };
  visit(body, 6);
  for (const item of items) {
    const need = /required:?\s*(?:one of:?\s*)?([\w.-]+)/i.exec(item.why);
    if (need?.[1] !== undefined && !sent.some((p) => p.name === item.name)) required[item.name] = need[1];
  }
  for (const p of sent) {
    const named = items.find((item) => item.name === p.name);
    const inText = texts.find((t) =>
      new RegExp(
        `(parameter\\s+["'\`]?${literal(p.name)}\\b|["'\`]${literal(p.name)}["'\`]|^${literal(p.name)}\\b)`,
      ).test(t),
    );
    if (named === undefined && inText === undefined) continue;
    const why = named?.why ?? inText ?? '';
    const unknownName =
      /unknown|unsupported|unexpected|not allowed|unrecognized|not recognised|invalid parameter|no such/i.test(
        why,
      );
    // "send it once, comma-joined": the values were right, their form was not.
    const list = (p.values?.length ?? 0) > 1 && /comma|once|repeat|multiple|duplicate/i.test(why);
    return { blamed: { param: p.param, value: !unknownName, ...(list ? { list } : {}) }, required };
  }
  return { required };
}

/** The contract's name and format of a parameter on an endpoint: its own spec, else the top level's. */
export function contractParam(
  contract: CompiledContract,
  endpoint: EndpointName,
  param: FilterParam,
): { name: string; format?: TimeFormat; epoch?: string } {
  const own = contract.source.endpoints?.[endpoint]?.params?.[param];
  const top = contract.source.params?.[param];
  const spec = own ?? top;
  const name = (typeof spec === 'string' ? spec : spec?.name) ?? contract.params[param];
  if (typeof spec !== 'object' || spec === null) return { name };
  return {
    name,
    ...(spec.format === undefined ? {} : { format: spec.format }),
    ...(spec.epoch === undefined ? {} : { epoch: spec.epoch }),
  };
}

/**
 * The findings as contract file sections: a parameter whose name or format differs from the
 * contract's goes in the endpoint's `params`, a page size's name in the pagination's `limit`, a
 * required parameter in `fixedParams`.
 */
export function paramSections(
  contract: CompiledContract,
  found: readonly {
    endpoint: EndpointName;
    params: readonly ParamFinding[];
    fixed: Record<string, string>;
  }[],
): {
  endpoints: Record<string, Record<string, unknown>>;
  top: Record<string, unknown>;
  limit?: string;
  undecided: string[];
} {
  const endpoints: Record<string, Record<string, unknown>> = {};
  const undecided: string[] = [];
  let limit: string | undefined;
  const own = (e: string) => {
    endpoints[e] ??= {};
    return endpoints[e] as Record<string, unknown>;
  };
  // A filter every endpoint took under one name and format is said once, at the top level.
  const specOf = (f: ParamFinding) => {
    const format = f.format === 'iso' ? undefined : f.format;
    return format === undefined && f.epoch === undefined && f.list === undefined
      ? f.name
      : {
          name: f.name,
          ...(format === undefined ? {} : { format }),
          ...(f.epoch === undefined ? {} : { epoch: f.epoch }),
          ...(f.list === undefined ? {} : { list: f.list }),
        };
  };
  const byFilter = new Map<string, Set<string>>();
  for (const { params } of found)
    for (const f of params)
      if (f.param !== 'limit')
        byFilter.set(f.param, (byFilter.get(f.param) ?? new Set()).add(JSON.stringify(specOf(f))));
  const top: Record<string, unknown> = {};
  for (const [filter, specs] of byFilter) {
    const only = [...specs][0];
    if (specs.size !== 1 || only === undefined) continue;
    const spec = JSON.parse(only) as string | { name: string };
    const was = contract.source.params?.[filter as FilterParam];
    if (JSON.stringify(spec) !== JSON.stringify(was ?? contract.params[filter as FilterParam]))
      top[filter] = spec;
  }
  for (const { endpoint, params, fixed } of found) {
    for (const f of params) {
      if (f.param !== 'limit' && byFilter.get(f.param)?.size === 1) continue;
      if (f.param === 'limit') {
        const current =
          endpoint === 'bookKeywords' ? contract.pagination.bookKeywords?.limitParam : undefined;
        if (f.name !== (current ?? contract.source.pagination?.limit?.param ?? 'limit')) limit = f.name;
        continue;
      }
      const was = contractParam(contract, endpoint, f.param);
      const format = f.format === 'iso' ? undefined : f.format;
      const sameFormat = (format ?? 'iso') === (was.format ?? 'iso') && f.epoch === was.epoch;
      if (f.name === was.name && sameFormat && f.list === undefined) continue;
      const spec = specOf(f);
      const params = (own(endpoint).params ?? {}) as Record<string, unknown>;
      params[f.param] = spec;
      own(endpoint).params = params;
    }
    if (Object.keys(fixed).length > 0) {
      own(endpoint).fixedParams = { ...(own(endpoint).fixedParams as object | undefined), ...fixed };
      undecided.push(
        `${endpoint}: the API asked for ${Object.entries(fixed)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}: sent with every request (fixedParams)`,
      );
    }
  }
  return { endpoints, top, ...(limit === undefined ? {} : { limit }), undecided };
}

/**
 * The parameters the API took otherwise than the contract sends them, as the places of the contract
 * file that change (`pagination.limit.param: perPage`): a contract whose fields fit every answer
 * still does not fit the API while one is left, since `run` would be refused (a 400) on every poll.
 */
export function paramChanges(found: ReturnType<typeof paramSections>): string[] {
  const spec = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const changes = Object.entries(found.top).map(([filter, value]) => `params.${filter}: ${spec(value)}`);
  if (found.limit !== undefined) changes.push(`pagination.limit.param: ${found.limit}`);
  for (const [endpoint, own] of Object.entries(found.endpoints)) {
    for (const [filter, value] of Object.entries((own.params ?? {}) as Record<string, unknown>))
      changes.push(`endpoints.${endpoint}.params.${filter}: ${spec(value)}`);
    if (own.fixedParams !== undefined)
      changes.push(`endpoints.${endpoint}.fixedParams: ${spec(own.fixedParams)}`);
  }
  return changes;
}

export type { ContractFile };
