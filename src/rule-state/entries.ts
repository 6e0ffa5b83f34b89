import {
  type ByteReader,
  type ByteWriter,
  isUint,
  isZigzagSafe,
  unzigzag,
  zigzag,
} from '../snapshot/bytes.ts';
import type { ConditionState } from './condition.ts';
import {
  CLEAR,
  FIRING,
  type KeywordColumns,
  NONE,
  NULL_BASELINE,
  PENDING,
  PHASE_MASK,
  put,
} from './keyword-state.ts';
import { RuleStateDecodeError, RuleStateEncodeError } from './legacy.ts';

/**
 * One condition in the bytes of `codec.ts`: compact keyword entries (what every poll writes)
 * and exact ones (any number, for values the compact form cannot carry, and for keyed conditions).
 */

/** Head bits of a compact entry: baselineAt (resp. clearAt) is T itself and is not written. */
const BASELINE_AT_BASE = 8;
const CLEAR_AT_BASE = 16;
/**
 * A firing entry carries its low point (`worst`) after the repeat count: in compact entries as a
 * uvarint (0 for unranked), in exact ones as a num. States written before it have no such bit and
 * read back with the low point not known (keyword column 0, keyed field absent).
 */
const WORST_KNOWN = 32;
const HEAD_BITS = PHASE_MASK | NULL_BASELINE | BASELINE_AT_BASE | CLEAR_AT_BASE | WORST_KNOWN;

/** A low point's compact form: ranks are ≥ 1, so 0 is free to say "unranked". */
function fitsCompactWorst(worst: number): boolean {
  return worst === 0 || worst === Number.POSITIVE_INFINITY || isUint(worst);
}

// ---- compact entries ------------------------------------------------------------------------------

/** T − time as a varint, only when T − that delta gives the time back exactly. */
function timeFits(time: number, base: number): boolean {
  const delta = base - time;
  return isZigzagSafe(delta) && base - delta === time && !Object.is(time, -0);
}

export function fitsCompact(c: KeywordColumns, n: number, base: number): boolean {
  for (let i = 0; i < n; i++) {
    const head = c.head[i]!;
    const phase = head & PHASE_MASK;
    if (phase === NONE) continue;
    if ((head & NULL_BASELINE) === 0 && !isUint(c.baseline[i]!)) return false;
    if (!timeFits(c.baselineAt[i]!, base) || !timeFits(c.clearAt[i]!, base)) return false;
    if (phase === PENDING && !isUint(c.count[i]!)) return false;
    if (
      phase === FIRING &&
      !(
        timeFits(c.firedAt[i]!, base) &&
        timeFits(c.lastNotifiedAt[i]!, base) &&
        isUint(c.repeatCount[i]!) &&
        fitsCompactWorst(c.worst[i]!)
      )
    ) {
      return false;
    }
  }
  return true;
}

export function writeCompact(w: ByteWriter, c: KeywordColumns, i: number, base: number): void {
  const head = c.head[i]!;
  const phase = head & PHASE_MASK;
  if (phase === NONE) {
    w.u8(NONE);
    return;
  }
  const baselineAt = c.baselineAt[i]!;
  const clearAt = c.clearAt[i]!;
  const worst = phase === FIRING ? c.worst[i]! : 0;
  w.u8(
    head |
      (baselineAt === base ? BASELINE_AT_BASE : 0) |
      (clearAt === base ? CLEAR_AT_BASE : 0) |
      (worst !== 0 ? WORST_KNOWN : 0),
  );
  if ((head & NULL_BASELINE) === 0) w.uvarint(c.baseline[i]!);
  if (baselineAt !== base) w.uvarint(zigzag(base - baselineAt));
  if (clearAt !== base) w.uvarint(zigzag(base - clearAt));
  if (phase === PENDING) w.uvarint(c.count[i]!);
  if (phase === FIRING) {
    w.uvarint(zigzag(base - c.firedAt[i]!));
    w.uvarint(zigzag(base - c.lastNotifiedAt[i]!));
    w.uvarint(c.repeatCount[i]!);
    if (worst !== 0) w.uvarint(worst === Number.POSITIVE_INFINITY ? 0 : worst);
  }
}

export function readCompact(r: ByteReader, c: KeywordColumns, i: number, base: number): void {
  const head = r.u8();
  const phase = head & PHASE_MASK;
  if (phase === NONE) {
    if (head !== NONE) throw new RuleStateDecodeError(`bad keyword entry head ${head}`);
    return;
  }
  if ((head & ~HEAD_BITS) !== 0 || ((head & WORST_KNOWN) !== 0 && phase !== FIRING)) {
    throw new RuleStateDecodeError(`bad keyword entry head ${head}`);
  }
  const baseline = (head & NULL_BASELINE) === 0 ? r.uvarint() : null;
  const baselineAt = (head & BASELINE_AT_BASE) === 0 ? base - unzigzag(r.uvarint()) : base;
  const clearAt = (head & CLEAR_AT_BASE) === 0 ? base - unzigzag(r.uvarint()) : base;
  if (phase === CLEAR) put(c, i, CLEAR, baseline, baselineAt, clearAt, 0, 0, 0, 0);
  else if (phase === PENDING) put(c, i, PENDING, baseline, baselineAt, clearAt, r.uvarint(), 0, 0, 0);
  else {
    const firedAt = base - unzigzag(r.uvarint());
    const lastNotifiedAt = base - unzigzag(r.uvarint());
    const repeatCount = r.uvarint();
    const worst = (head & WORST_KNOWN) === 0 ? 0 : r.uvarint() || Number.POSITIVE_INFINITY;
    put(c, i, FIRING, baseline, baselineAt, clearAt, 0, firedAt, lastNotifiedAt, repeatCount, worst);
  }
}

// ---- exact entries --------------------------------------------------------------------------------

export function writeExact(w: ByteWriter, s: ConditionState): void {
  const phase =
    s.phase === 'clear' ? CLEAR : s.phase === 'pending' ? PENDING : s.phase === 'firing' ? FIRING : NONE;
  if (phase === NONE) throw new RuleStateEncodeError(`unknown condition phase ${String(s.phase)}`);
  const worst = s.phase === 'firing' ? s.worst : undefined;
  w.u8(worst === undefined ? phase : phase | WORST_KNOWN);
  w.num(s.baseline);
  w.num(s.baselineAt);
  w.num(s.clearAt);
  if (s.phase === 'pending') w.num(s.count);
  if (s.phase === 'firing') {
    w.num(s.firedAt);
    w.num(s.lastNotifiedAt);
    w.num(s.repeatCount);
    if (worst !== undefined) w.num(worst);
  }
}

/** A phase byte of an exact entry: the phase, and whether a low point follows (firing only). */
function exactPhase(byte: number): { phase: number; withWorst: boolean } {
  const withWorst = byte === (FIRING | WORST_KNOWN);
  return { phase: withWorst ? FIRING : byte, withWorst };
}

export function readExact(r: ByteReader): ConditionState {
  const { phase, withWorst } = exactPhase(r.u8());
  const baseline = r.num();
  const baselineAt = r.reqNum('baselineAt');
  const clearAt = r.reqNum('clearAt');
  if (phase === CLEAR) return { phase: 'clear', baseline, baselineAt, clearAt };
  if (phase === PENDING) return { phase: 'pending', baseline, baselineAt, clearAt, count: r.reqNum('count') };
  if (phase !== FIRING) throw new RuleStateDecodeError(`unknown condition phase ${phase}`);
  const firedAt = r.reqNum('firedAt');
  const lastNotifiedAt = r.reqNum('lastNotifiedAt');
  const repeatCount = r.reqNum('repeatCount');
  const firing = {
    phase: 'firing',
    baseline,
    baselineAt,
    clearAt,
    firedAt,
    lastNotifiedAt,
    repeatCount,
  } as const;
  return withWorst ? { ...firing, worst: r.reqNum('worst') } : firing;
}

export function writeExactEntry(w: ByteWriter, c: KeywordColumns, i: number): void {
  const head = c.head[i]!;
  const phase = head & PHASE_MASK;
  const worst = phase === FIRING ? c.worst[i]! : 0;
  w.u8(worst === 0 ? phase : phase | WORST_KNOWN);
  if (phase === NONE) return;
  w.num((head & NULL_BASELINE) !== 0 ? null : c.baseline[i]!);
  w.num(c.baselineAt[i]!);
  w.num(c.clearAt[i]!);
  if (phase === PENDING) w.num(c.count[i]!);
  if (phase === FIRING) {
    w.num(c.firedAt[i]!);
    w.num(c.lastNotifiedAt[i]!);
    w.num(c.repeatCount[i]!);
    if (worst !== 0) w.num(worst);
  }
}

export function readExactEntry(r: ByteReader, c: KeywordColumns, i: number): void {
  const { phase, withWorst } = exactPhase(r.u8());
  if (phase === NONE) return;
  const baseline = r.num();
  const baselineAt = r.reqNum('baselineAt');
  const clearAt = r.reqNum('clearAt');
  if (phase === CLEAR) put(c, i, CLEAR, baseline, baselineAt, clearAt, 0, 0, 0, 0);
  else if (phase === PENDING) put(c, i, PENDING, baseline, baselineAt, clearAt, r.reqNum('count'), 0, 0, 0);
  else if (phase === FIRING) {
    const firedAt = r.reqNum('firedAt');
    const lastNotifiedAt = r.reqNum('lastNotifiedAt');
    const repeatCount = r.reqNum('repeatCount');
    const worst = withWorst ? r.reqNum('worst') : 0;
    put(c, i, FIRING, baseline, baselineAt, clearAt, 0, firedAt, lastNotifiedAt, repeatCount, worst);
  } else throw new RuleStateDecodeError(`unknown condition phase ${phase}`);
}
