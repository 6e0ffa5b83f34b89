import type { Rng } from './prng.ts';

export type FaultKind =
  | 'status'
  | 'html'
  | 'slow'
  | 'malformed_json'
  | 'extra_field'
  | 'drop_field'
  | 'no_figure'
  | 'reset_connection';

export const FAULT_KINDS: readonly FaultKind[] = [
  'status',
  'html',
  'slow',
  'malformed_json',
  'extra_field',
  'drop_field',
  'no_figure',
  'reset_connection',
];

export interface SimFaultRates {
  errorRate?: number;
  htmlRate?: number;
  slowRate?: number;
  slowMs?: number;
  malformedRate?: number;
}

export type RetryAfterSpec = { seconds: number } | { date: true; seconds?: number };

/** One fault to apply to one request. */
export interface Fault {
  kind: FaultKind;
  status?: number | undefined;
  code?: string | undefined;
  retryAfter?: RetryAfterSpec | undefined;
  delayMs?: number | undefined;
  field?: string | undefined;
}

export interface ScriptedFault extends Fault {
  /** Requests still to be hit. */
  count: number;
  pathPrefix: string;
}

const DEFAULT_SLOW_MS = 1500;

/**
 * Scripted faults (a FIFO, each for the next `count` requests under its path prefix) take
 * precedence over random ones. Random faults draw from the seed and the request's sequence
 * number, so the same run of requests meets the same faults.
 */
export class FaultInjector {
  private readonly queue: ScriptedFault[] = [];
  private rates: SimFaultRates;

  constructor(
    private readonly rng: Rng,
    rates: SimFaultRates,
  ) {
    this.rates = { ...rates };
  }

  enqueue(fault: ScriptedFault): void {
    this.queue.push({ ...fault });
  }

  setRates(rates: SimFaultRates): void {
    this.rates = { ...rates };
  }

  clear(): void {
    this.queue.length = 0;
    this.rates = {};
  }

  pending(): { queued: ScriptedFault[]; rates: SimFaultRates } {
    return { queued: this.queue.map((fault) => ({ ...fault })), rates: { ...this.rates } };
  }

  take(path: string, seq: number): Fault | undefined {
    const index = this.queue.findIndex((fault) => path.startsWith(fault.pathPrefix));
    const scripted = this.queue[index];
    if (scripted !== undefined) {
      scripted.count -= 1;
      if (scripted.count <= 0) this.queue.splice(index, 1);
      const { count: _count, pathPrefix: _prefix, ...fault } = scripted;
      return fault;
    }
    return this.random(seq);
  }

  private random(seq: number): Fault | undefined {
    const u = this.rng.unit('fault', seq);
    let edge = this.rates.errorRate ?? 0;
    if (u < edge) {
      return this.rng.chance(0.5, 'fault-error', seq)
        ? {
            kind: 'status',
            status: 503,
            code: 'unavailable',
            retryAfter: { seconds: this.rng.int(1, 5, 'fault-wait', seq) },
          }
        : { kind: 'status', status: 500, code: 'internal' };
    }
    edge += this.rates.htmlRate ?? 0;
    if (u < edge) return { kind: 'html', status: this.rng.pick([502, 503, 504], 'fault-html', seq) };
    edge += this.rates.slowRate ?? 0;
    if (u < edge) return { kind: 'slow', delayMs: this.rates.slowMs ?? DEFAULT_SLOW_MS };
    edge += this.rates.malformedRate ?? 0;
    if (u < edge) return { kind: 'malformed_json' };
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Adds an unknown field to the top level and to every nested object: clients must tolerate it. */
export function addExtraFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(addExtraFields);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = addExtraFields(item);
  out.x_sim_unknown = { note: 'a field the contract does not define', level: 1 };
  return out;
}

function dropPath(value: unknown, segments: readonly string[]): boolean {
  if (!isRecord(value)) return false;
  const [head, ...rest] = segments;
  if (head === undefined || !(head in value)) return false;
  if (rest.length === 0) {
    delete value[head];
    return true;
  }
  return dropPath(value[head], rest);
}

/**
 * Deletes a dotted field path (`bsr.rank`). When the top level has no such field and carries a
 * `data` list, the path is removed from every item instead (`units` in /v1/sales).
 */
export function dropField(body: unknown, path: string): unknown {
  const copy: unknown = structuredClone(body);
  const segments = path.split('.');
  if (dropPath(copy, segments)) return copy;
  if (isRecord(copy) && Array.isArray(copy.data)) {
    for (const item of copy.data) dropPath(item, segments);
    return copy;
  }
  // A dialect keeps its list elsewhere (`result.keywords`): drop the field from the items of the
  // lists one or two levels down.
  dropInLists(copy, segments, 2);
  return copy;
}

function dropInLists(value: unknown, segments: string[], depth: number): void {
  if (!isRecord(value) || depth === 0) return;
  for (const inner of Object.values(value)) {
    if (Array.isArray(inner)) for (const item of inner) dropPath(item, segments);
    else dropInLists(inner, segments, depth - 1);
  }
}

/**
 * Every sales row of an answer (in our words, before a dialect writes it) without its money: royalties
 * and ad spend are "no figure" (null), which a dialect with `noFigure` writes as its first sentinel
 * (Keepa's -1) and the assumed contract, which has none, sends as null (drift to its readers).
 */
export function withoutFigures(body: unknown): unknown {
  if (!isRecord(body) || !Array.isArray(body.data)) return body;
  const data = body.data.map((row: unknown) =>
    isRecord(row) && 'royalties' in row ? { ...row, royalties: null, ad_spend: null } : row,
  );
  return { ...body, data };
}
