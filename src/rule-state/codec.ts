import { crc32 } from 'node:zlib';
import type { Observation } from '../model/observation.ts';
import { ByteReader, ByteWriter } from '../snapshot/bytes.ts';
import type { ConditionState } from './condition.ts';
import {
  fitsCompact,
  readCompact,
  readExact,
  readExactEntry,
  writeCompact,
  writeExact,
  writeExactEntry,
} from './entries.ts';
import { allocColumns, type KeywordColumns, type KeywordState } from './keyword-state.ts';
import { migrateLegacyState, RuleStateDecodeError, RuleStateEncodeError } from './legacy.ts';
import { readReviewTrack, writeReviewTrack } from './reviews.ts';
import type { RuleState } from './shapes.ts';

export { RuleStateDecodeError, RuleStateEncodeError } from './legacy.ts';

/**
 * The rule state as the snapshot record stores it: bytes the store keeps without reading (record
 * flag 2). Decoding needs the observation stored next to it, whose keyword order the columns follow.
 *
 *   u8 version (1, or 2 with missing reviews), num base time T (the observation's time)
 *   uvarint count, then per condition: str key, exact condition     ← BSR rules' few conditions
 *   version 2 only: the campaign's missing reviews (`reviews.ts`)
 *   u8 0 (no keyword columns) | u8 1 and:
 *     uvarint n (= the observation's keyword count)
 *     uvarint repeats, then per repeat: uvarint gap to the last repeat's index, uvarint first index
 *     uvarint rules, then per rule: str rule id, u8 layout, n entries
 *   u32 CRC-32 of all the bytes before it
 *
 * Layout 0 (compact) is what every poll writes: a head byte (phase, "baseline is null",
 * "baselineAt is T", "clearAt is T"), then only what the head does not say: the baseline as a
 * uvarint, times as zigzag varints of T − time, pending count, firing times and repeat count
 * (`entries.ts`). A clear keyword judged this poll takes 2–7 bytes (4.5 a keyword on the
 * memory benchmark's books, against 138 as keyed JSON). A rule whose columns hold a value that form
 * cannot carry exactly (a fractional or negative baseline, a time 2^51 ms or more from T, a -0)
 * takes layout 1 (exact) instead: a phase byte, then every field as `ByteWriter.num`, lossless for
 * any number.
 *
 * The checksum is there because a state that decodes but is wrong (a flipped bit in a baseline)
 * would alert on a drop that never happened; with it, damaged bytes are a RuleStateDecodeError
 * and the poller judges with fresh conditions instead (`salvageRuleState`).
 */

const VERSION = 1;
/** Version 1 plus the missing reviews; a state without any is still written as version 1. */
const VERSION_REVIEWS = 2;
const LAYOUT_COMPACT = 0;
const LAYOUT_EXACT = 1;
const CHECKSUM_BYTES = 4;

export function encodeRuleState(state: RuleState, observation: Observation): Buffer {
  const base = observation.observedAt;
  const kw = state.keywords;
  const w = new ByteWriter(64 + (kw === undefined ? 0 : kw.ranks.length * 6 * Math.max(1, kw.rules.size)));
  w.u8(state.reviews === undefined ? VERSION : VERSION_REVIEWS);
  w.num(base);
  const entries = Object.entries(state.conditions);
  w.uvarint(entries.length);
  for (const [key, condition] of entries) {
    w.str(key);
    writeExact(w, condition);
  }
  if (state.reviews !== undefined) writeReviewTrack(w, state.reviews);
  if (kw === undefined) {
    w.u8(0);
    return sealed(w);
  }
  if (
    observation.kind !== 'keywords' ||
    observation.ranks.length !== kw.ranks.length ||
    observation.asin !== kw.asin ||
    observation.marketplace !== kw.marketplace
  ) {
    throw new RuleStateEncodeError('keyword columns must be stored with the observation they were judged on');
  }
  const n = kw.ranks.length;
  w.u8(1);
  w.uvarint(n);
  writeRepeats(w, kw.repeatOf);
  w.uvarint(kw.rules.size);
  for (const [ruleId, columns] of kw.rules) {
    w.str(ruleId);
    if (fitsCompact(columns, n, base)) {
      w.u8(LAYOUT_COMPACT);
      for (let i = 0; i < n; i++) writeCompact(w, columns, i, base);
    } else {
      w.u8(LAYOUT_EXACT);
      for (let i = 0; i < n; i++) writeExactEntry(w, columns, i);
    }
  }
  return sealed(w);
}

function sealed(w: ByteWriter): Buffer {
  w.u32(crc32(w.finish()));
  return w.finish();
}

/**
 * The rule state a record holds: undefined for none, bytes from `encodeRuleState`, or the JSON the
 * previous version stored (migrated, see `legacy.ts`). Anything unreadable is a
 * `RuleStateDecodeError`.
 */
export function decodeRuleState(stored: unknown, observation: Observation): RuleState | undefined {
  return decode(stored, observation, undefined);
}

/** What `salvageRuleState` could read, and what it could not (undefined when it read everything). */
export interface SalvagedRuleState {
  state: RuleState | undefined;
  lost: RuleStateDecodeError | undefined;
}

/**
 * `decodeRuleState` that keeps what can be read: a legacy state without its malformed conditions,
 * a state without keyword columns that do not fit the observation. Bytes that fail the checksum or
 * come from another version are all lost: nothing in them can be trusted.
 */
export function salvageRuleState(stored: unknown, observation: Observation): SalvagedRuleState {
  let lost: RuleStateDecodeError | undefined;
  try {
    const state = decode(stored, observation, (error) => {
      lost ??= error;
    });
    return { state, lost };
  } catch (error) {
    if (!(error instanceof RuleStateDecodeError)) throw error;
    return { state: undefined, lost: error };
  }
}

/** Called with a section that could not be read when the rest is kept; strict decoding has none. */
type OnLoss = ((error: RuleStateDecodeError) => void) | undefined;

function decode(stored: unknown, observation: Observation, onLoss: OnLoss): RuleState | undefined {
  if (stored === undefined || stored === null) return undefined;
  if (!(stored instanceof Uint8Array)) return migrateLegacyState(stored, observation, onLoss);
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const body = bytes.length - CHECKSUM_BYTES;
  if (body < 0 || crc32(bytes.subarray(0, body)) !== bytes.readUInt32LE(body)) {
    throw new RuleStateDecodeError('rule state is damaged (checksum mismatch)');
  }
  try {
    return readState(new ByteReader(bytes.subarray(0, body)), observation, onLoss);
  } catch (error) {
    throw unreadable(error);
  }
}

function unreadable(error: unknown): RuleStateDecodeError {
  if (error instanceof RuleStateDecodeError) return error;
  return new RuleStateDecodeError(`rule state unreadable: ${(error as Error).message}`, { cause: error });
}

function readState(r: ByteReader, observation: Observation, onLoss: OnLoss): RuleState {
  const version = r.u8();
  if (version !== VERSION && version !== VERSION_REVIEWS) {
    throw new RuleStateDecodeError(`unsupported rule-state version ${version}`);
  }
  const base = r.reqNum('base time');
  const count = r.count(3);
  const pairs: [string, ConditionState][] = [];
  for (let k = 0; k < count; k++) pairs.push([r.str(), readExact(r)]);
  // fromEntries defines own properties: a key such as "__proto__" cannot reach the prototype.
  const state: RuleState = { conditions: Object.fromEntries(pairs) };
  if (version === VERSION_REVIEWS) state.reviews = readReviewTrack(r);
  const flag = r.u8();
  if (flag === 1) {
    // The keyword section is last: when it cannot be read, what came before it still can.
    try {
      state.keywords = readKeywords(r, observation, base);
    } catch (error) {
      if (onLoss === undefined) throw error;
      onLoss(unreadable(error));
      return state;
    }
  } else if (flag !== 0) throw new RuleStateDecodeError(`bad keyword-state flag ${flag}`);
  r.end();
  return state;
}

function readKeywords(r: ByteReader, observation: Observation, base: number): KeywordState {
  if (observation.kind !== 'keywords') {
    throw new RuleStateDecodeError(`keyword columns stored with a ${observation.kind} observation`);
  }
  const ranks = observation.ranks;
  const n = r.uvarint();
  if (n !== ranks.length) {
    throw new RuleStateDecodeError(`keyword columns for ${n} keywords, the observation has ${ranks.length}`);
  }
  const repeatOf = readRepeats(r, observation);
  const ruleCount = r.count(2);
  const rules = new Map<string, KeywordColumns>();
  for (let k = 0; k < ruleCount; k++) {
    const ruleId = r.str();
    if (rules.has(ruleId)) throw new RuleStateDecodeError(`keyword columns of rule ${ruleId} twice`);
    const layout = r.u8();
    if (layout !== LAYOUT_COMPACT && layout !== LAYOUT_EXACT) {
      throw new RuleStateDecodeError(`unknown keyword-column layout ${layout}`);
    }
    // At least a byte an entry: truncated bytes fail here, before allocating.
    if (r.remaining < n) throw new RuleStateDecodeError(`keyword columns of rule ${ruleId} are truncated`);
    const columns = allocColumns(n);
    for (let i = 0; i < n; i++) {
      if (layout === LAYOUT_COMPACT) readCompact(r, columns, i, base);
      else readExactEntry(r, columns, i);
    }
    rules.set(ruleId, columns);
  }
  return { asin: observation.asin, marketplace: observation.marketplace, ranks, repeatOf, rules };
}

function writeRepeats(w: ByteWriter, repeatOf: Int32Array | null): void {
  if (repeatOf === null) {
    w.uvarint(0);
    return;
  }
  let count = 0;
  for (const j of repeatOf) if (j >= 0) count++;
  w.uvarint(count);
  let last = 0;
  for (let i = 0; i < repeatOf.length; i++) {
    const j = repeatOf[i]!;
    if (j < 0) continue;
    w.uvarint(i - last);
    w.uvarint(j);
    last = i;
  }
}

/** Repeats must name an earlier entry that is itself a first occurrence of the same keyword. */
function readRepeats(r: ByteReader, observation: Observation & { kind: 'keywords' }): Int32Array | null {
  const ranks = observation.ranks;
  const count = r.count(2);
  if (count === 0) return null;
  const repeatOf = new Int32Array(ranks.length).fill(-1);
  let i = 0;
  for (let k = 0; k < count; k++) {
    i += r.uvarint();
    const j = r.uvarint();
    if (i >= ranks.length || j >= i || repeatOf[j] !== -1 || repeatOf[i] !== -1) {
      throw new RuleStateDecodeError(`bad keyword repeat ${i} → ${j}`);
    }
    if (ranks[i]!.keyword !== ranks[j]!.keyword) {
      throw new RuleStateDecodeError(`keyword ${i} is not a repeat of keyword ${j}`);
    }
    repeatOf[i] = j;
  }
  return repeatOf;
}
