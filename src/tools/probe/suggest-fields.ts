/**
 * One field of probe's suggestion from the values seen: its format, its "no rank" values, a scale,
 * whether it may be absent, money's members; and the state a suggestion gathers on the way (what the
 * API says "no rank" with, marketplaces, platforms, a sales day's states). Pure.
 */
import type { FieldSpec, FieldSpecObject, ObjectNode } from '../../api/tooling.ts';
import { valueAt } from './probe-analyse.ts';
import {
  absentFromSome,
  ratingScale,
  type Sentinel,
  sortSentinels,
  timeSpec,
  unrankedSeen,
} from './suggest-evidence.ts';
import { type MoneyHints, moneySpec, noFigureFor } from './suggest-money.ts';

export interface Ctx {
  undecided: string[];
  marketplaces: Set<string>;
  /** Marketplaces sent as numbers (Keepa's domain ids). */
  marketplaceIds: Set<number>;
  platforms: Set<string>;
  /** Each "no rank" value seen, and the first place it was seen. */
  sentinels: Map<Sentinel, string>;
  /** What the API says "no rank" with anywhere (a first pass over every answer), for ranks that show none. */
  dialect: readonly Sentinel[];
  /** Where the first pass saw a rank left out. */
  dialectWhere: string;
  salesStatus: Record<string, 'final' | 'provisional'>;
  /** Ranks no answer showed a "no rank" value for: offered the values no rank can be, said once. */
  unseenRanks: Set<string>;
  /** Where the money of the object being suggested can take a currency from (suggest-money.ts). */
  money: MoneyHints;
}

export const newCtx = (dialect: readonly Sentinel[] = [], dialectWhere = ''): Ctx => ({
  undecided: [],
  marketplaces: new Set(),
  marketplaceIds: new Set(),
  platforms: new Set(),
  sentinels: new Map(),
  dialect,
  dialectWhere,
  salesStatus: {},
  unseenRanks: new Set(),
  money: { rowMarketplace: true },
});

export const asObject = (spec: FieldSpec | undefined): FieldSpecObject =>
  spec === undefined ? { path: '' } : typeof spec === 'string' ? { path: spec } : spec;

/** The first items of a list merged key by key, so a field absent from the first item is still seen. */
export function sample(list: readonly unknown[]): unknown {
  const first = list[0];
  if (Array.isArray(first) || typeof first !== 'object' || first === null) return first;
  const out: Record<string, unknown> = {};
  for (const item of list.slice(0, 50)) {
    if (typeof item !== 'object' || item === null) continue;
    for (const [k, v] of Object.entries(item)) if (out[k] === undefined || out[k] === null) out[k] = v;
  }
  return out;
}

export const NEVER_RANKS: Sentinel[] = [null, 0, -1];
/** Filters probe does not send: nothing in the account gives it a value to try. */
export const FILTERS_NOT_ASKED: readonly string[] = ['keyword', 'since', 'platform'];

/**
 * A rank's or rating's "no rank" values, offered from evidence: those seen here, and those the API
 * uses elsewhere (one convention per API: a 0 among keyword ranks says a missing BSR is 0 too).
 * Nothing seen anywhere keeps the contract's and says so.
 */
export function unrankedFor(
  path: string,
  siblings: readonly unknown[],
  _old: FieldSpecObject,
  where: string,
  ctx: Ctx,
): Sentinel[] | undefined {
  const seen = unrankedSeen(path, siblings);
  for (const s of seen) if (!ctx.sentinels.has(s)) ctx.sentinels.set(s, where);
  // null, 0 and -1 can never be a rank, so reading each as "no rank" is always safe; an absent
  // member is offered only where the API was seen leaving one out (it would hide a renamed field).
  const offered = sortSentinels([...NEVER_RANKS, ...seen, ...ctx.dialect]);
  if (seen.length === 0 && !offered.includes('missing')) ctx.unseenRanks.add(where);
  else if (seen.length === 0)
    ctx.undecided.push(
      `${where}: its own answer shows no "no rank" value; "missing" is offered because the API leaves ranks out elsewhere (${ctx.dialectWhere}): check it`,
    );
  return offered;
}

/** Extras a field that already reads may still need: its "no rank" values, a scale, "may be absent". */
export function extrasOf(
  node: ObjectNode['fields'][number],
  path: string,
  siblings: readonly unknown[],
  old: FieldSpecObject,
  where: string,
  ctx: Ctx,
): Partial<FieldSpecObject> {
  const out: Partial<FieldSpecObject> = {};
  if (node.kind === 'rank' || node.kind === 'rating') {
    const unranked = unrankedFor(path, siblings, old, where, ctx);
    if (unranked !== undefined && JSON.stringify(unranked) !== JSON.stringify(old.unranked ?? [null]))
      out.unranked = unranked;
  }
  if (node.kind === 'rating' || (node.kind === 'int' && node.name === 'rating')) {
    const scale = ratingScale(path, siblings);
    if (scale !== undefined && scale !== old.scale) {
      out.scale = scale;
      ctx.undecided.push(
        `${where}: values up to ${scale * 5} seen: read as a rating sent x${scale} (check it)`,
      );
    }
  }
  if (node.kind === 'money') {
    const noFigure = noFigureFor({ ...old, path }, siblings, where, ctx.undecided);
    if (noFigure !== undefined && JSON.stringify(noFigure) !== JSON.stringify(old.noFigure))
      out.noFigure = noFigure;
  }
  if (
    node.kind !== 'rank' &&
    node.kind !== 'rating' &&
    node.kind !== 'list' &&
    node.kind !== 'money' &&
    old.optional !== true &&
    absentFromSome(path, siblings)
  ) {
    out.optional = true;
  }
  return out;
}

/** A spec for `field` at `path` in `container`, its format read from the value there. */
export function specAt(
  node: ObjectNode['fields'][number],
  path: string,
  container: unknown,
  siblings: readonly unknown[],
  old: FieldSpecObject,
  where: string,
  ctx: Ctx,
): FieldSpec {
  const value = valueAt(container, path);
  const out: FieldSpecObject = { path };
  switch (node.kind) {
    case 'time':
    case 'date': {
      const spec = timeSpec(value, node.kind === 'date');
      if (spec.format !== (node.kind === 'date' ? 'date' : 'iso')) Object.assign(out, spec);
      break;
    }
    case 'money':
      return moneySpec(path, container, siblings, ctx.money, where, ctx.undecided);
    case 'int':
    case 'number':
    case 'rank':
    case 'rating':
      if (typeof value === 'string') out.format = 'string';
      if (node.kind === 'rank' || node.kind === 'rating') {
        const unranked = unrankedFor(path, siblings, old, where, ctx);
        if (unranked !== undefined) out.unranked = unranked;
      }
      if (node.kind === 'rating' || (node.kind === 'int' && node.name === 'rating')) {
        const scale = ratingScale(path, siblings);
        if (scale !== undefined) {
          out.scale = scale;
          ctx.undecided.push(
            `${where}: values up to ${scale * 5} seen: read as a rating sent x${scale} (check it)`,
          );
        }
      }
      break;
    case 'marketplace':
      if (typeof value === 'string') ctx.marketplaces.add(value);
      if (typeof value === 'number') ctx.marketplaceIds.add(value);
      break;
    case 'platform':
      if (typeof value === 'string') ctx.platforms.add(value);
      break;
    default:
      if (absentFromSome(path, siblings)) out.optional = true;
      break;
  }
  return Object.keys(out).length === 1 ? path : out;
}
