import type { Alert } from '../model/alert.ts';
import type { Observation, TargetRef } from '../model/observation.ts';
import { redact } from '../util/redact.ts';
import { DAY_MS } from '../util/time-units.ts';
import { ByteReader, ByteWriter } from './bytes.ts';
import type { DictionarySource } from './dictionary-cache.ts';
import {
  decodeDictionary,
  decodeObservation,
  dictionaryIdOf,
  type EncodedDictionary,
  encodeObservation,
} from './encoding.ts';
import { SnapshotDecodeError, SnapshotEncodeError } from './errors.ts';
import type { StoredTarget, TargetHealth } from './types.ts';

/**
 * What a target's snapshot key holds, shared by both adapters so they cannot drift apart:
 *
 *   ASCII decimal pollSeq, ':'                      ← the compare-and-set script reads only this
 *   u8 record version, num committedAt,
 *   u8 0 (no rule state) | u8 1 + string (rule state as JSON) | u8 2 + uvarint length + bytes,
 *   the observation (`encoding.ts`, with its own version byte) to the end.
 *
 * The rule state is opaque here: the rules engine encodes its state to bytes (`src/rule-state/`)
 * and those are kept as they are (flag 2); any other value is kept as JSON (flag 1, what versions
 * before the binary rule state wrote, still read). A version that does not know flag 2 reads such a
 * record as unreadable and takes a fresh baseline: no crash on a rollback.
 *
 * The sequence number is plain ASCII at the front so the Lua script can check it with GETRANGE and
 * a pattern, without a binary-unpacking library or reading the whole value.
 */

const RECORD_VERSION = 1;
const STATE_NONE = 0;
const STATE_JSON = 1;
const STATE_BYTES = 2;
const COLON = 0x3a;

/** Snapshots and health expire this long after their last write, so abandoned targets cannot pile up. */
export const DEFAULT_TTL_MS = 45 * DAY_MS;

export function checkTtl(ttlMs: number): number {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  return ttlMs;
}

/** The checks and encoding both adapters do before a commit: what to write, and which dictionary it needs. */
export function prepareCommit(
  target: TargetRef,
  next: { observation: Observation; ruleState: unknown; committedAt: number },
  expectedSeq: number,
): { record: Buffer; dictionary: EncodedDictionary | null } {
  if (!Number.isSafeInteger(expectedSeq) || expectedSeq < 0 || expectedSeq >= 1e15) {
    throw new RangeError(`expectedSeq must be a whole number from 0, got ${expectedSeq}`);
  }
  if (next.observation.kind !== target.kind) {
    throw new SnapshotEncodeError(
      `a ${next.observation.kind} observation cannot be stored for ${target.kind} target ${target.id}`,
    );
  }
  const encoded = encodeObservation(next.observation);
  const record = encodeRecord(expectedSeq + 1, next.committedAt, next.ruleState, encoded.bytes);
  return { record, dictionary: encoded.dictionary };
}

export function encodeRecord(
  pollSeq: number,
  committedAt: number,
  ruleState: unknown,
  observation: Buffer,
): Buffer {
  const bytes = ruleState instanceof Uint8Array ? ruleState : undefined;
  let json: string | undefined;
  if (bytes === undefined) {
    try {
      json = JSON.stringify(ruleState);
    } catch (error) {
      throw new SnapshotEncodeError(`rule state is not JSON: ${(error as Error).message}`, { cause: error });
    }
  }
  const w = new ByteWriter(observation.length + (bytes?.length ?? json?.length ?? 0) + 32);
  w.bytes(Buffer.from(`${pollSeq}:`, 'latin1'));
  w.u8(RECORD_VERSION);
  w.num(committedAt);
  if (bytes !== undefined) {
    w.u8(STATE_BYTES);
    w.uvarint(bytes.length);
    w.bytes(bytes);
  } else if (json === undefined) {
    w.u8(STATE_NONE);
  } else {
    w.u8(STATE_JSON);
    w.str(json);
  }
  w.bytes(observation);
  return w.finish();
}

export interface DecodedRecord {
  pollSeq: number;
  committedAt: number;
  ruleState: unknown;
  observation: Buffer;
}

/** The pollSeq in a record's header, as the commit script reads it. */
export function readSeq(value: Buffer): number {
  const colon = value.subarray(0, 17).indexOf(COLON);
  const seqText = colon > 0 ? value.toString('latin1', 0, colon) : '';
  if (!/^\d+$/.test(seqText)) throw new SnapshotDecodeError('snapshot header unreadable');
  return Number(seqText);
}

export function decodeRecord(value: Buffer): DecodedRecord {
  const pollSeq = readSeq(value);
  try {
    const r = new ByteReader(value, String(pollSeq).length + 1);
    const version = r.u8();
    if (version !== RECORD_VERSION) throw new SnapshotDecodeError(`unsupported record version ${version}`);
    const committedAt = r.reqNum('committedAt');
    const flag = r.u8();
    let ruleState: unknown;
    // A copy: the caller owns it, and it does not pin (or alias, in the memory store) the record.
    if (flag === STATE_BYTES) ruleState = Buffer.from(r.bytes(r.count(1)));
    else if (flag === STATE_JSON) ruleState = parseJson(r.str(), 'rule state');
    else if (flag !== STATE_NONE) throw new SnapshotDecodeError(`bad rule-state flag ${flag}`);
    return { pollSeq, committedAt, ruleState, observation: r.rest() };
  } catch (error) {
    throw withSeq(error, pollSeq);
  }
}

export async function readStoredTarget(value: Buffer, dictionaries: DictionarySource): Promise<StoredTarget> {
  const record = decodeRecord(value);
  try {
    const id = dictionaryIdOf(record.observation);
    let keywords: readonly string[] | undefined;
    if (id !== null) {
      keywords = dictionaries.cached(id);
      if (keywords === undefined) {
        const bytes = await dictionaries.load(id);
        if (bytes === null) throw new SnapshotDecodeError(`keyword dictionary ${id} is missing`);
        keywords = decodeDictionary(bytes, id);
        dictionaries.remember(id, keywords);
      }
    }
    const observation: Observation = decodeObservation(record.observation, keywords);
    return {
      observation,
      ruleState: record.ruleState,
      committedAt: record.committedAt,
      pollSeq: record.pollSeq,
    };
  } catch (error) {
    throw withSeq(error, record.pollSeq);
  }
}

function withSeq(error: unknown, pollSeq: number): SnapshotDecodeError {
  const message = error instanceof Error ? error.message : String(error);
  return new SnapshotDecodeError(message, { pollSeq, cause: error });
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SnapshotDecodeError(`${what} is not JSON`, { cause: error });
  }
}

// ---- health -------------------------------------------------------------------------------------

export const DEFAULT_HEALTH: Readonly<TargetHealth> = Object.freeze({
  consecutiveFailures: 0,
  lastOutcome: null,
  lastPollAt: null,
  lastError: null,
  costPerPoll: null,
  sourceHealth: undefined,
});

const HEALTH_VERSION = 1;
const MAX_ERROR_CHARS = 500;
const OUTCOMES: readonly (TargetHealth['lastOutcome'] & string)[] = ['ok', 'no_data', 'error'];

/**
 * A JSON tuple `[version, failures, outcome, lastPollAt, lastError, costPerPoll, sourceHealth?,
 * pendingAlerts?]`; trailing elements are left out when empty (sourceHealth is null when only the
 * pending alerts follow), so `undefined` comes back as `undefined` rather than null.
 */
export function encodeHealth(h: TargetHealth): Buffer {
  // The one free-text field that reaches Redis: anything shaped like a credential goes, last fence.
  const lastError = h.lastError === null ? null : redact(h.lastError).slice(0, MAX_ERROR_CHARS);
  const tuple: unknown[] = [
    HEALTH_VERSION,
    h.consecutiveFailures,
    h.lastOutcome,
    h.lastPollAt,
    lastError,
    h.costPerPoll,
  ];
  const pending = h.pendingAlerts ?? [];
  if (h.sourceHealth !== undefined || pending.length > 0) tuple.push(h.sourceHealth ?? null);
  if (pending.length > 0) tuple.push(pending);
  let json: string;
  try {
    json = JSON.stringify(tuple);
  } catch (error) {
    throw new SnapshotEncodeError(`source health is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return Buffer.from(json, 'utf8');
}

export function decodeHealth(value: Buffer): TargetHealth {
  const tuple = parseJson(value.toString('utf8'), 'health');
  if (!Array.isArray(tuple) || tuple.length < 6 || tuple.length > 8 || tuple[0] !== HEALTH_VERSION) {
    throw new SnapshotDecodeError('health record has an unknown shape');
  }
  const [, failures, outcome, lastPollAt, lastError, cost, sourceHealth, pending] = tuple as unknown[];
  const numOrNull = (v: unknown): v is number | null => v === null || typeof v === 'number';
  if (
    typeof failures !== 'number' ||
    !(outcome === null || OUTCOMES.includes(outcome as 'ok')) ||
    !numOrNull(lastPollAt) ||
    !(lastError === null || typeof lastError === 'string') ||
    !numOrNull(cost) ||
    !(pending === undefined || isAlertList(pending))
  ) {
    throw new SnapshotDecodeError('health record has a field of the wrong type');
  }
  return {
    consecutiveFailures: failures,
    lastOutcome: outcome as TargetHealth['lastOutcome'],
    lastPollAt,
    lastError,
    costPerPoll: cost,
    sourceHealth: sourceHealth ?? undefined,
    ...(pending === undefined ? {} : { pendingAlerts: pending }),
  };
}

/** Enough of an alert to enqueue it again: its fingerprint names its delivery jobs. */
function isAlertList(value: unknown): value is Alert[] {
  return (
    Array.isArray(value) &&
    value.every(
      (alert) =>
        typeof alert === 'object' && alert !== null && typeof (alert as Alert).fingerprint === 'string',
    )
  );
}
