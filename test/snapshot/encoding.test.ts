import { describe, expect, it } from 'vitest';
import type { BookObservation, Observation } from '../../src/model/observation.ts';
import { seededRandom } from '../../src/sim/prng.ts';
import {
  decodeDictionary,
  decodeObservation,
  dictionaryIdOf,
  encodeDictionary,
  encodeObservation,
  FORMAT_VERSION,
} from '../../src/snapshot/encoding.ts';
import { SnapshotDecodeError, SnapshotEncodeError } from '../../src/snapshot/errors.ts';
import { decodeHealth, decodeRecord, encodeHealth, encodeRecord } from '../../src/snapshot/record.ts';
import { asStored, book, everyKind, HOSTILE_TITLE, keywords, reranked, reviews } from './fixtures.ts';

function roundTrip(o: Observation): Observation {
  const encoded = encodeObservation(o);
  const dictionary = encoded.dictionary === null ? undefined : decodeDictionary(encoded.dictionary.bytes);
  return decodeObservation(encoded.bytes, dictionary);
}

/** Decoding must end in a value or a SnapshotDecodeError; anything else fails the test. */
function decodeOrTypedError(bytes: Buffer, dictionary?: readonly string[]): 'ok' | 'error' {
  try {
    decodeObservation(bytes, dictionary);
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(SnapshotDecodeError);
    return 'error';
  }
}

describe('snapshot encoding', () => {
  it.each(everyKind())('round-trips a %s observation', (_name, o) => {
    expect(roundTrip(o)).toEqual(asStored(o));
  });

  it('keeps only review summaries: text fields come back empty', () => {
    const decoded = roundTrip(reviews());
    expect(decoded.kind).toBe('reviews');
    if (decoded.kind !== 'reviews') return;
    expect(decoded.reviews.map((r) => r.reviewId)).toEqual(['R1', 'R2', 'R3']);
    expect(decoded.reviews[0]).toMatchObject({ title: null, body: '', reviewer: '', url: null, rating: 5 });
    expect(encodeObservation(reviews()).bytes.includes(Buffer.from(HOSTILE_TITLE.slice(0, 9)))).toBe(false);
  });

  it('starts every buffer with the format version, and refuses another version', () => {
    for (const [, o] of everyKind()) {
      const { bytes } = encodeObservation(o);
      expect(bytes[0]).toBe(FORMAT_VERSION);
      const future = Buffer.from(bytes);
      future[0] = FORMAT_VERSION + 1;
      expect(() =>
        decodeObservation(
          future,
          keywords().ranks.map((r) => r.keyword),
        ),
      ).toThrow(/unsupported snapshot format version/);
    }
  });

  it('stores a 1,000-keyword snapshot as a dictionary id and 4 bytes a rank', () => {
    const o = keywords(1000);
    const { bytes, dictionary } = encodeObservation(o);
    expect(bytes.length).toBeGreaterThan(4000);
    expect(bytes.length).toBeLessThan(4000 + 64);
    expect(dictionary?.keywords).toHaveLength(1000);
    expect(dictionaryIdOf(bytes)).toBe(dictionary?.id);
    expect(dictionaryIdOf(encodeObservation(book()).bytes)).toBeNull();
  });

  it('gives the same dictionary id to the same list, and a different one to a changed list', () => {
    const first = encodeObservation(keywords(1000, 1)).dictionary!;
    const later = encodeObservation(reranked(keywords(1000, 1), 9)).dictionary!;
    expect(later.id).toBe(first.id);
    const reordered = keywords(1000, 1);
    reordered.ranks.reverse();
    expect(encodeObservation(reordered).dictionary!.id).not.toBe(first.id);
    // Length-prefixed strings: ["ab","c"] and ["a","bc"] must not share an id.
    expect(encodeDictionary(['ab', 'c']).id).not.toBe(encodeDictionary(['a', 'bc']).id);
  });

  it('refuses a dictionary whose content does not match its id, or does not fit the snapshot', () => {
    const { bytes, dictionary } = encodeObservation(keywords(10));
    const other = encodeDictionary(['x']);
    expect(() => decodeDictionary(other.bytes, dictionary!.id)).toThrow(SnapshotDecodeError);
    expect(() => decodeObservation(bytes)).toThrow(/needs dictionary/);
    expect(() => decodeObservation(bytes, ['x'])).toThrow(/dictionary has 1 keywords, snapshot has 10/);
  });

  it('round-trips numbers and strings that JSON or UTF-8 would change', () => {
    const o = book({
      title: 'lone \ud800 surrogate',
      author: '',
      averageRating: 4.333333333333333,
      reviewCount: Number.MAX_SAFE_INTEGER,
      bsr: null,
      bsrCategory: null,
      observedAt: -0,
      bsrHistory: [
        { at: 1.5, rank: -3 },
        { at: 2, rank: Number.NaN },
      ],
    });
    const back = roundTrip(o) as BookObservation;
    expect(back).toEqual(o);
    expect(Object.is(back.observedAt, -0)).toBe(true);
  });

  it('keeps keyword lists exact: unpaired surrogates, a pair split across two keywords, empty strings', () => {
    for (const list of [
      ['a\uD83D', '\uDE00b', '', 'plain'],
      ['lone \uD800', 'ok', '\uDFFF'],
      ['😀 emoji', 'e\u0301', '東京'],
      [],
    ]) {
      const d = encodeDictionary(list);
      expect(decodeDictionary(d.bytes, d.id)).toEqual(list);
    }
  });

  it('packs an hourly 30-day BSR history to a few bytes a point', () => {
    const points = Array.from({ length: 720 }, (_, i) => ({
      at: 1_790_000_000_000 + i * 3_600_000,
      rank: i % 50 === 0 ? null : 40_000 + ((i * 7919) % 3000),
    }));
    const o = book({ bsrHistory: points });
    expect(roundTrip(o)).toEqual(o);
    const bytes = encodeObservation(o).bytes.length;
    expect(bytes).toBeLessThan(720 * 4);
    expect(bytes).toBeLessThan(JSON.stringify(points).length / 8);
  });

  it('refuses ranks the packed format cannot hold', () => {
    for (const rank of [0, -1, 2.5, 2 ** 32]) {
      const o = keywords(3);
      o.ranks[1]!.rank = rank;
      expect(() => encodeObservation(o)).toThrow(SnapshotEncodeError);
    }
  });

  it('keeps comp titles and sentiment shares, and still reads a book snapshot written without them', () => {
    const withExtras = book({
      compTitles: [
        { asin: 'B0COMP0001', title: HOSTILE_TITLE, bsr: 950 },
        { asin: 'B0COMP0002', title: 'Unranked Rival', bsr: null },
      ],
      sentiment: { positive: 0.81, neutral: 0.12, negative: 0.07 },
    });
    expect(roundTrip(withExtras)).toEqual(withExtras);
    // A book without them is written exactly as before the fields existed: those bytes read back.
    const plain = book();
    const decoded = roundTrip(plain);
    expect(decoded).toEqual(plain);
    expect('compTitles' in decoded || 'sentiment' in decoded).toBe(false);
    const oldBytes = encodeObservation(plain).bytes;
    const newBytes = encodeObservation(withExtras).bytes;
    expect(newBytes.subarray(0, oldBytes.length)).toEqual(oldBytes);
    // Cut inside the tail, or with a byte too many: an error, never a guess.
    for (let n = oldBytes.length + 1; n < newBytes.length; n++) {
      expect(decodeOrTypedError(newBytes.subarray(0, n), undefined), `cut at ${n}`).toBe('error');
    }
    expect(decodeOrTypedError(Buffer.concat([newBytes, Buffer.from([0])]), undefined)).toBe('error');
  });

  it('turns every truncation of every kind into a SnapshotDecodeError', () => {
    for (const [, o] of everyKind()) {
      const { bytes, dictionary } = encodeObservation(o);
      const words = dictionary === null ? undefined : dictionary.keywords;
      // Keywords: sample lengths; every cut of a 4 KB buffer is slow without being more telling.
      const step = bytes.length > 1000 ? 37 : 1;
      for (let n = 0; n < bytes.length; n += step) {
        expect(decodeOrTypedError(bytes.subarray(0, n), words), `cut at ${n}`).toBe('error');
      }
      expect(decodeOrTypedError(Buffer.concat([bytes, Buffer.from([0])]), words)).toBe('error');
    }
  });

  it('never crashes on flipped bytes, garbage or absurd counts', () => {
    const rand = seededRandom(42);
    for (const [, o] of everyKind()) {
      const { bytes, dictionary } = encodeObservation(o);
      for (let i = 0; i < 300; i++) {
        const copy = Buffer.from(bytes);
        for (let f = 0; f < 3; f++) copy[Math.floor(rand() * copy.length)] = Math.floor(rand() * 256);
        decodeOrTypedError(copy, dictionary?.keywords);
      }
    }
    const dictionary = encodeDictionary(keywords(200).ranks.map((r) => r.keyword)).bytes;
    for (let i = 0; i < 300; i++) {
      const copy = Buffer.from(dictionary.subarray(0, Math.floor(rand() * dictionary.length)));
      if (copy.length > 0) copy[Math.floor(rand() * copy.length)] = Math.floor(rand() * 256);
      try {
        decodeDictionary(copy);
      } catch (error) {
        expect(error).toBeInstanceOf(SnapshotDecodeError);
      }
    }
    for (let i = 0; i < 300; i++) {
      const garbage = Buffer.from(
        Array.from({ length: 1 + Math.floor(rand() * 64) }, () => Math.floor(rand() * 256)),
      );
      garbage[0] = FORMAT_VERSION;
      decodeOrTypedError(garbage);
    }
    // version, sales, observedAt 0, no marketplace, string table count 2^49.
    const absurd = Buffer.from([FORMAT_VERSION, 4, 1, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
    expect(() => decodeObservation(absurd)).toThrow(/exceeds the remaining bytes/);
    expect(() => decodeDictionary(Buffer.from([FORMAT_VERSION, 0x44, 0xff, 0xff, 0xff, 0x7f]))).toThrow(
      SnapshotDecodeError,
    );
  });
});

describe('stored record and health', () => {
  it('round-trips the record envelope with its rule state', () => {
    const obs = encodeObservation(book()).bytes;
    const state = { conditions: { 'bsr-drop': { firing: true, since: 3 } }, note: 'ü' };
    const record = decodeRecord(encodeRecord(12, 1_790_000_000_000, state, obs));
    expect(record).toMatchObject({ pollSeq: 12, committedAt: 1_790_000_000_000, ruleState: state });
    expect(record.observation.equals(obs)).toBe(true);
    expect(decodeRecord(encodeRecord(1, 5, undefined, obs)).ruleState).toBeUndefined();
  });

  it('keeps a rule state given as bytes as those bytes (flag 2), and fails cleanly when they are cut short', () => {
    const obs = encodeObservation(book()).bytes;
    const state = Buffer.from([1, 2, 3, 0x3a, 0]);
    const encoded = encodeRecord(3, 9, state, obs);
    const record = decodeRecord(encoded);
    expect(record.ruleState).toEqual(state);
    expect(record.observation.equals(obs)).toBe(true);
    // The length says 5 bytes, 3 are left: unreadable, with the pollSeq for a fresh baseline.
    const at = encoded.indexOf(state);
    const cut = Buffer.concat([encoded.subarray(0, at - 1), Buffer.from([100]), state.subarray(0, 3)]);
    expect(() => decodeRecord(cut)).toThrow(
      expect.objectContaining({ name: 'SnapshotDecodeError', pollSeq: 3 }),
    );
  });

  it('reports a corrupt record with the pollSeq when the header survived', () => {
    const good = encodeRecord(7, 5, { a: 1 }, encodeObservation(book()).bytes);
    const err = (() => {
      try {
        decodeRecord(good.subarray(0, 5));
      } catch (error) {
        return error;
      }
    })();
    expect(err).toBeInstanceOf(SnapshotDecodeError);
    expect((err as SnapshotDecodeError).pollSeq).toBe(7);
    expect(() => decodeRecord(Buffer.from('xx:'))).toThrow(/header unreadable/);
    expect(() => encodeRecord(1, 1, { n: 1n }, good)).toThrow(SnapshotEncodeError);
  });

  it('round-trips health and masks credential-shaped text in lastError', () => {
    const health = {
      consecutiveFailures: 3,
      lastOutcome: 'error' as const,
      lastPollAt: 1_790_000_000_000,
      lastError: 'HTTP 401 Authorization: Bearer pa_live_abc123 via https://u:hunter2@host/?api_key=xyz',
      costPerPoll: 2.4,
      sourceHealth: { firing: true },
    };
    const back = decodeHealth(encodeHealth(health));
    expect(back).toEqual({ ...health, lastError: back.lastError });
    for (const secret of ['pa_live_abc123', 'hunter2', 'xyz']) expect(back.lastError).not.toContain(secret);
    expect(back.lastError).toContain('HTTP 401');
    expect(decodeHealth(encodeHealth({ ...health, sourceHealth: undefined })).sourceHealth).toBeUndefined();
    expect(() => decodeHealth(Buffer.from('[1,"x"]'))).toThrow(SnapshotDecodeError);
  });

  it('round-trips the pending alerts of health (the outbox), with or without source-health state', () => {
    const health = {
      consecutiveFailures: 2,
      lastOutcome: 'error' as const,
      lastPollAt: 1_790_000_000_000,
      lastError: 'TransientError: 503',
      costPerPoll: 1,
      sourceHealth: undefined,
    };
    const pendingAlerts = [{ fingerprint: 'f1', kind: 'source_health', title: 'Polling failed' }] as never[];
    expect(decodeHealth(encodeHealth({ ...health, pendingAlerts }))).toEqual({ ...health, pendingAlerts });
    const withState = { ...health, sourceHealth: { rules: {} }, pendingAlerts };
    expect(decodeHealth(encodeHealth(withState))).toEqual(withState);
    // An empty outbox is not written: the record is the one versions without it read.
    expect(JSON.parse(encodeHealth({ ...health, pendingAlerts: [] }).toString())).toHaveLength(6);
    expect(() => decodeHealth(Buffer.from('[1,0,null,null,null,null,null,[{"x":1}]]'))).toThrow(
      SnapshotDecodeError,
    );
  });
});
