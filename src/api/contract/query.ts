/**
 * Query parameters compiled per endpoint: each filter's name, how a time or date is written (a date,
 * RFC 3339, or a count since an epoch), several values repeated or comma-joined, and fixed extra
 * parameters. The endpoint's own `params` override the contract's top-level ones, name by name.
 */
import { isoFromMs } from './formats.ts';
import type { ContractFile, FilterParam, ParamFormat, ParamSpec } from './schema.ts';

export interface IncomingParam {
  filter: FilterParam;
  read: (value: string) => string;
  comma: boolean;
  /** Whether one value is written in the parameter's format (the simulator refuses others, as an API would). */
  accepts: (value: string) => boolean;
  /** The format's name, for the simulator's messages. */
  format: ParamFormat | undefined;
}

export type Filters = Partial<Record<FilterParam, string | readonly string[] | undefined>>;

export interface CompiledQuery {
  /** Our filters (times as ISO text, dates as YYYY-MM-DD) → the API's query entries, in order. */
  build(filters: Filters): [string, string][];
  /** The API's parameter name → our filter, for the simulator reading a request. */
  readonly incoming: ReadonlyMap<string, IncomingParam>;
  /** Fixed extra parameters: sent with every request of the endpoint. */
  readonly fixed: readonly [string, string][];
}

interface Resolved {
  name: string;
  format?: ParamFormat | undefined;
  epochMs: number;
  list: 'repeat' | 'comma';
}

const UNIT_MS: Partial<Record<ParamFormat, number>> = { epoch_s: 1000, epoch_ms: 1, epoch_min: 60_000 };

function resolve(spec: ParamSpec | undefined, fallback: string): Resolved {
  if (spec === undefined || typeof spec === 'string')
    return { name: spec ?? fallback, epochMs: 0, list: 'repeat' };
  return {
    name: spec.name ?? fallback,
    format: spec.format,
    epochMs: spec.epoch === undefined ? 0 : Date.parse(`${spec.epoch}T00:00:00Z`),
    list: spec.list ?? 'repeat',
  };
}

function msOf(value: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
}

function writer(r: Resolved): (value: string) => string {
  const unit = r.format === undefined ? undefined : UNIT_MS[r.format];
  if (unit !== undefined) return (v) => String(Math.floor((msOf(v) - r.epochMs) / unit));
  if (r.format === 'date') return (v) => isoFromMs(msOf(v)).slice(0, 10);
  if (r.format === 'rfc3339') return (v) => isoFromMs(msOf(v));
  return (v) => v;
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

function accepter(r: Resolved): (value: string) => boolean {
  if (r.format === undefined) return () => true;
  if (r.format === 'date') return (v) => ISO_DAY.test(v);
  if (r.format === 'rfc3339') return (v) => RFC3339.test(v);
  return (v) => /^-?\d+$/.test(v);
}

/** The simulator's side: the API's value back to ours (times as RFC 3339; `sales` wants dates). */
function reader(r: Resolved): (value: string) => string {
  const unit = r.format === undefined ? undefined : UNIT_MS[r.format];
  // Not a count: passed on as sent, for the simulator to refuse as the API would (a 400, not a crash).
  if (unit !== undefined) return (v) => (/^-?\d+$/.test(v) ? isoFromMs(Number(v) * unit + r.epochMs) : v);
  return (v) => v;
}

export function compileQuery(
  contract: ContractFile,
  own: ContractFile['params'],
  fixed: Readonly<Record<string, string>> | undefined,
  defaults: Readonly<Record<FilterParam, string>>,
): CompiledQuery {
  const entries = (Object.keys(defaults) as FilterParam[]).map((filter) => {
    const r = resolve(own?.[filter] ?? contract.params?.[filter], defaults[filter]);
    return { filter, r, write: writer(r) };
  });
  const fixedEntries = Object.entries({ ...contract.fixedParams, ...fixed });
  const incoming = new Map<string, IncomingParam>();
  for (const { filter, r } of entries)
    incoming.set(r.name, {
      filter,
      read: reader(r),
      comma: r.list === 'comma',
      accepts: accepter(r),
      format: r.format,
    });
  return {
    incoming,
    fixed: fixedEntries,
    build(filters) {
      const out: [string, string][] = [];
      for (const { filter, r, write } of entries) {
        const value = filters[filter];
        if (value === undefined) continue;
        if (typeof value === 'string') out.push([r.name, write(value)]);
        else if (r.list === 'comma') {
          if (value.length > 0) out.push([r.name, value.map(write).join(',')]);
        } else for (const item of value) out.push([r.name, write(item)]);
      }
      for (const [name, value] of fixedEntries) out.push([name, value]);
      return out;
    },
  };
}

/** The name of each filter (top level, for messages and the probe). */
export function paramNames(
  contract: ContractFile,
  defaults: Readonly<Record<FilterParam, string>>,
): Record<FilterParam, string> {
  const out = {} as Record<FilterParam, string>;
  for (const filter of Object.keys(defaults) as FilterParam[])
    out[filter] = resolve(contract.params?.[filter], defaults[filter]).name;
  return out;
}
