import type { KeywordRank } from '../model/observation.ts';
import type { ConditionState } from './condition.ts';

/**
 * keyword rank conditions as columns, one entry per keyword in the order of the observation
 * they were judged on. A 1,000-keyword book keeps 1,000 conditions per rule; as objects keyed
 * `ruleId|asin|marketplace|keyword` they were 141 bytes a keyword in Redis and most of a poll's
 * CPU time (string keys, object churn, JSON). As columns they need no keys at all: index i is the
 * keyword at index i of the observation the state was committed with, which the next poll almost
 * always lists in the same order (see `diff.ts`).
 *
 * The fields are those of `ConditionState`; entries a phase does not use hold 0, so two states
 * with the same conditions are equal field by field (tests, codec round trips).
 */

/** Phase codes in the low two bits of `head`; NONE = no condition at this index. */
export const NONE = 0;
export const CLEAR = 1;
export const PENDING = 2;
export const FIRING = 3;
export const PHASE_MASK = 3;
/** Set in `head` when the baseline is null (a keyword first seen unranked). */
export const NULL_BASELINE = 4;

export interface KeywordColumns {
  /** Phase code | NULL_BASELINE. */
  head: Uint8Array;
  baseline: Float64Array;
  baselineAt: Float64Array;
  clearAt: Float64Array;
  /** Pending only. */
  count: Float64Array;
  /** Firing only, like the next two. */
  firedAt: Float64Array;
  lastNotifiedAt: Float64Array;
  repeatCount: Float64Array;
  /** Firing only: the worst rank since it fired (Infinity: unranked); 0 = not known (older state). */
  worst: Float64Array;
}

/** The keyword conditions of one keywords target. */
export interface KeywordState {
  asin: string;
  marketplace: string;
  /** The ranks of the observation the columns are aligned with (only its keyword order matters). */
  ranks: readonly KeywordRank[];
  /**
   * For each index, the index of the keyword's first occurrence when it repeats an earlier entry
   * (judged once, at its first occurrence), else -1; null when no keyword repeats. Kept with the
   * state so a poll with the same keyword order never has to hash its keywords to find repeats.
   */
  repeatOf: Int32Array | null;
  /** Columns per keyword rank rule id. */
  rules: Map<string, KeywordColumns>;
}

const FLOAT_COLUMNS = 8;

/** Zeroed columns for n keywords: one backing buffer for the eight number columns. */
export function allocColumns(n: number): KeywordColumns {
  const buffer = new ArrayBuffer(n * FLOAT_COLUMNS * 8);
  const column = (k: number) => new Float64Array(buffer, k * n * 8, n);
  return {
    head: new Uint8Array(n),
    baseline: column(0),
    baselineAt: column(1),
    clearAt: column(2),
    count: column(3),
    firedAt: column(4),
    lastNotifiedAt: column(5),
    repeatCount: column(6),
    worst: column(7),
  };
}

/** Writes one condition; every field is written, so unused ones are 0 whatever was there before. */
export function put(
  c: KeywordColumns,
  i: number,
  phase: number,
  baseline: number | null,
  baselineAt: number,
  clearAt: number,
  count: number,
  firedAt: number,
  lastNotifiedAt: number,
  repeatCount: number,
  worst = 0,
): void {
  c.head[i] = baseline === null ? phase | NULL_BASELINE : phase;
  c.baseline[i] = baseline ?? 0;
  c.baselineAt[i] = baselineAt;
  c.clearAt[i] = clearAt;
  c.count[i] = count;
  c.firedAt[i] = firedAt;
  c.lastNotifiedAt[i] = lastNotifiedAt;
  c.repeatCount[i] = repeatCount;
  c.worst[i] = worst;
}

export function copyEntry(from: KeywordColumns, s: number, to: KeywordColumns, i: number): void {
  to.head[i] = from.head[s]!;
  to.baseline[i] = from.baseline[s]!;
  to.baselineAt[i] = from.baselineAt[s]!;
  to.clearAt[i] = from.clearAt[s]!;
  to.count[i] = from.count[s]!;
  to.firedAt[i] = from.firedAt[s]!;
  to.lastNotifiedAt[i] = from.lastNotifiedAt[s]!;
  to.repeatCount[i] = from.repeatCount[s]!;
  to.worst[i] = from.worst[s]!;
}

/** For each index, the first index of the same keyword when it repeats one, else -1; null: none repeat. */
export function findRepeats(ranks: readonly KeywordRank[]): Int32Array | null {
  const first = new Map<string, number>();
  let repeatOf: Int32Array | null = null;
  for (let i = 0; i < ranks.length; i++) {
    const keyword = ranks[i]!.keyword;
    const j = first.get(keyword);
    if (j === undefined) {
      first.set(keyword, i);
      continue;
    }
    repeatOf ??= new Int32Array(ranks.length).fill(-1);
    repeatOf[i] = j;
  }
  return repeatOf;
}

/** The condition at index i as the object `condition.ts` would hold, or undefined for NONE. */
export function readEntry(c: KeywordColumns, i: number): ConditionState | undefined {
  const head = c.head[i]!;
  const phase = head & PHASE_MASK;
  if (phase === NONE) return undefined;
  const base = {
    baseline: (head & NULL_BASELINE) !== 0 ? null : c.baseline[i]!,
    baselineAt: c.baselineAt[i]!,
    clearAt: c.clearAt[i]!,
  };
  if (phase === CLEAR) return { phase: 'clear', ...base };
  if (phase === PENDING) return { phase: 'pending', ...base, count: c.count[i]! };
  const worst = c.worst[i]!;
  return {
    phase: 'firing',
    ...base,
    firedAt: c.firedAt[i]!,
    lastNotifiedAt: c.lastNotifiedAt[i]!,
    repeatCount: c.repeatCount[i]!,
    ...(worst === 0 ? {} : { worst }),
  };
}

export function writeEntry(c: KeywordColumns, i: number, s: ConditionState): void {
  if (s.phase === 'clear') put(c, i, CLEAR, s.baseline, s.baselineAt, s.clearAt, 0, 0, 0, 0);
  else if (s.phase === 'pending') put(c, i, PENDING, s.baseline, s.baselineAt, s.clearAt, s.count, 0, 0, 0);
  else {
    const { firedAt, lastNotifiedAt, repeatCount } = s;
    put(
      c,
      i,
      FIRING,
      s.baseline,
      s.baselineAt,
      s.clearAt,
      0,
      firedAt,
      lastNotifiedAt,
      repeatCount,
      s.worst ?? 0,
    );
  }
}

/** The key the keyed (JSON) form used for a keyword condition. */
export function keywordKey(ruleId: string, asin: string, marketplace: string, keyword: string): string {
  return `${ruleId}|${asin}|${marketplace}|${keyword}`;
}

/**
 * Every condition of a rule state in the keyed form `RuleState.conditions` had before the columns
 * (`ruleId|asin|marketplace|keyword` for keywords). For tests, diagnostics and the comparison with
 * the old format; the engine never builds it. Takes the two fields of a `RuleState` it reads, so
 * this module does not import `scope.ts`, which imports it.
 */
export function conditionsOf(state: {
  conditions: Record<string, ConditionState>;
  keywords?: KeywordState | undefined;
}): Record<string, ConditionState> {
  const out: Record<string, ConditionState> = { ...state.conditions };
  const kw = state.keywords;
  if (kw === undefined) return out;
  for (const [ruleId, columns] of kw.rules) {
    for (let i = 0; i < kw.ranks.length; i++) {
      const entry = readEntry(columns, i);
      if (entry !== undefined) out[keywordKey(ruleId, kw.asin, kw.marketplace, kw.ranks[i]!.keyword)] = entry;
    }
  }
  return out;
}
