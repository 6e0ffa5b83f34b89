import { createHash } from 'node:crypto';
import type { KeywordRank, KeywordsObservation, Observation } from '../model/observation.ts';
import { ByteReader, ByteWriter, hasLoneSurrogate } from './bytes.ts';
import { SnapshotDecodeError, SnapshotEncodeError } from './errors.ts';
import { readBook, readReviews, readSales, writeBook, writeReviews, writeSales } from './kinds.ts';

/**
 * The compact snapshot format. Every buffer starts with a format version byte and a kind byte, so a
 * later version can be read next to this one (an unknown version is a `SnapshotDecodeError`, never a
 * guess).
 *
 * A keyword list (up to 1,000 strings) barely changes from poll to poll while its ranks do, so a
 * keywords snapshot holds only a dictionary id and one uint32 per rank (0 = unranked); the strings
 * live once in a dictionary whose id is the SHA-256 of its bytes, shared by every snapshot of the
 * same list. The store keeps dictionaries under their own keys.
 *
 * Reviews keep only their summaries (see `kinds.ts`): decoding returns details with empty text.
 */

export const FORMAT_VERSION = 1;

const KIND_BOOK = 1;
const KIND_KEYWORDS = 2;
const KIND_REVIEWS = 3;
const KIND_SALES = 4;
/** Not an observation: a keyword dictionary, tagged so one can never be decoded as the other. */
const KIND_DICTIONARY = 0x44;

const DICTIONARY_ID_BYTES = 32;
const MAX_RANK = 0xffff_ffff;

export interface EncodedDictionary {
  /** Hex SHA-256 of `bytes`: equal lists get equal ids, on every replica. */
  id: string;
  bytes: Buffer;
  keywords: readonly string[];
}

export interface EncodedObservation {
  bytes: Buffer;
  /** The keyword dictionary the snapshot refers to; null for kinds other than keywords. */
  dictionary: EncodedDictionary | null;
}

const TEXT_UTF8 = 0;
const TEXT_UTF16 = 1;

/**
 * A dictionary is the keyword count, each keyword's length in UTF-16 code units, then all keywords
 * joined as one UTF-8 text. One `Buffer.from` and one `toString` for the whole list instead of a
 * native call per keyword makes it several times faster, and JS string lengths slice the decoded
 * text exactly (even a surrogate pair split across two keywords). Only when the list holds an
 * unpaired surrogate, which UTF-8 cannot carry, is the text stored as UTF-16LE instead.
 */
export function encodeDictionary(keywords: readonly string[]): EncodedDictionary {
  const joined = keywords.join('');
  const utf16 = hasLoneSurrogate(joined);
  const text = Buffer.from(joined, utf16 ? 'utf16le' : 'utf8');
  const w = new ByteWriter(keywords.length * 2 + text.length + 16);
  w.u8(FORMAT_VERSION);
  w.u8(KIND_DICTIONARY);
  w.u8(utf16 ? TEXT_UTF16 : TEXT_UTF8);
  w.uvarint(keywords.length);
  for (const k of keywords) w.uvarint(k.length);
  w.bytes(text);
  const bytes = w.finish();
  return { id: createHash('sha256').update(bytes).digest('hex'), bytes, keywords };
}

/** Reads a dictionary; with `expectedId`, also checks that the bytes are the ones the snapshot named. */
export function decodeDictionary(bytes: Buffer, expectedId?: string): string[] {
  return guard(() => {
    if (expectedId !== undefined) {
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (actual !== expectedId)
        throw new SnapshotDecodeError(`dictionary ${expectedId} has the wrong content`);
    }
    const r = new ByteReader(bytes);
    readHeader(r, KIND_DICTIONARY);
    const encoding = r.u8();
    if (encoding !== TEXT_UTF8 && encoding !== TEXT_UTF16)
      throw new SnapshotDecodeError(`bad text encoding ${encoding}`);
    const n = r.count(1);
    const lengths: number[] = new Array(n);
    let total = 0;
    for (let i = 0; i < n; i++) {
      lengths[i] = r.uvarint();
      total += lengths[i]!;
    }
    const text = r.rest().toString(encoding === TEXT_UTF16 ? 'utf16le' : 'utf8');
    if (text.length !== total)
      throw new SnapshotDecodeError(`dictionary text has ${text.length} units, lengths say ${total}`);
    const keywords: string[] = new Array(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      keywords[i] = text.slice(at, at + lengths[i]!);
      at += lengths[i]!;
    }
    return keywords;
  });
}

export function encodeObservation(o: Observation): EncodedObservation {
  const w = new ByteWriter(o.kind === 'keywords' ? o.ranks.length * 4 + 128 : 512);
  w.u8(FORMAT_VERSION);
  switch (o.kind) {
    case 'book':
      w.u8(KIND_BOOK);
      writeBook(w, o);
      return { bytes: w.finish(), dictionary: null };
    case 'keywords': {
      w.u8(KIND_KEYWORDS);
      const dictionary = writeKeywords(w, o);
      return { bytes: w.finish(), dictionary };
    }
    case 'reviews':
      w.u8(KIND_REVIEWS);
      writeReviews(w, o);
      return { bytes: w.finish(), dictionary: null };
    case 'sales':
      w.u8(KIND_SALES);
      writeSales(w, o);
      return { bytes: w.finish(), dictionary: null };
    default:
      throw new SnapshotEncodeError(
        `unknown observation kind ${JSON.stringify((o as { kind: unknown }).kind)}`,
      );
  }
}

/** The dictionary a snapshot needs before it can be decoded, or null when it needs none. */
export function dictionaryIdOf(bytes: Buffer): string | null {
  return guard(() => {
    const r = new ByteReader(bytes);
    if (readHeader(r) !== KIND_KEYWORDS) return null;
    return readKeywordsHead(r).dictionaryId;
  });
}

/**
 * Decodes a snapshot. A keywords snapshot needs the keyword list of its dictionary (see
 * `dictionaryIdOf`); any malformed input ends in a `SnapshotDecodeError`.
 */
export function decodeObservation(bytes: Buffer, dictionary?: readonly string[]): Observation {
  return guard(() => {
    const r = new ByteReader(bytes);
    const kind = readHeader(r);
    let o: Observation;
    if (kind === KIND_BOOK) o = readBook(r);
    else if (kind === KIND_KEYWORDS) o = readKeywords(r, dictionary);
    else if (kind === KIND_REVIEWS) o = readReviews(r);
    else if (kind === KIND_SALES) o = readSales(r);
    else throw new SnapshotDecodeError(`unknown snapshot kind ${kind}`);
    r.end();
    return o;
  });
}

function readHeader(r: ByteReader, expectKind?: number): number {
  const version = r.u8();
  if (version !== FORMAT_VERSION)
    throw new SnapshotDecodeError(`unsupported snapshot format version ${version}`);
  const kind = r.u8();
  if (expectKind !== undefined && kind !== expectKind) {
    throw new SnapshotDecodeError(`expected record kind ${expectKind}, found ${kind}`);
  }
  return kind;
}

/** Anything unexpected while decoding is still a decode error: callers get one type to catch. */
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof SnapshotDecodeError) throw error;
    throw new SnapshotDecodeError(`malformed snapshot: ${(error as Error).message}`, { cause: error });
  }
}

function writeKeywords(w: ByteWriter, o: KeywordsObservation): EncodedDictionary {
  const keywords: string[] = [];
  for (const { keyword, rank } of o.ranks) {
    if (rank !== null && !(Number.isInteger(rank) && rank >= 1 && rank <= MAX_RANK)) {
      throw new SnapshotEncodeError(`keyword rank must be null or an integer 1..${MAX_RANK}, got ${rank}`);
    }
    keywords.push(keyword);
  }
  const dictionary = encodeDictionary(keywords);
  w.num(o.observedAt);
  w.str(o.asin);
  w.str(o.marketplace);
  w.bytes(Buffer.from(dictionary.id, 'hex'));
  w.uvarint(o.ranks.length);
  for (const { rank } of o.ranks) w.u32(rank ?? 0);
  return dictionary;
}

function readKeywordsHead(r: ByteReader): {
  observedAt: number;
  asin: string;
  marketplace: string;
  dictionaryId: string;
} {
  const observedAt = r.reqNum('observedAt');
  const asin = r.str();
  const marketplace = r.str();
  const dictionaryId = r.bytes(DICTIONARY_ID_BYTES).toString('hex');
  return { observedAt, asin, marketplace, dictionaryId };
}

function readKeywords(r: ByteReader, dictionary: readonly string[] | undefined): KeywordsObservation {
  const head = readKeywordsHead(r);
  const n = r.count(4);
  if (dictionary === undefined)
    throw new SnapshotDecodeError(`keywords snapshot needs dictionary ${head.dictionaryId}`);
  if (dictionary.length !== n) {
    throw new SnapshotDecodeError(`dictionary has ${dictionary.length} keywords, snapshot has ${n} ranks`);
  }
  const ranks: KeywordRank[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const rank = r.u32();
    ranks[i] = { keyword: dictionary[i]!, rank: rank === 0 ? null : rank };
  }
  return {
    kind: 'keywords',
    observedAt: head.observedAt,
    asin: head.asin,
    marketplace: head.marketplace,
    ranks,
  };
}
