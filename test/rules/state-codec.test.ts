import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { KeywordsObservation, Observation } from '../../src/model/observation.ts';
import type { ConditionState } from '../../src/rule-state/condition.ts';
import {
  decodeRuleState,
  encodeRuleState,
  RuleStateDecodeError,
  RuleStateEncodeError,
} from '../../src/rule-state/index.ts';
import {
  allocColumns,
  findRepeats,
  type KeywordColumns,
  writeEntry,
} from '../../src/rule-state/keyword-state.ts';
import { conditionsOf, evaluate, type RuleState } from '../../src/rules/engine.ts';
import { seededRandom } from '../../src/sim/prng.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { ASIN, book, HOUR, keywords, rule, run, T0 } from './helpers.ts';

function observation(n: number, at = T0, repeat = false): KeywordsObservation {
  const ranks = Array.from({ length: n }, (_, i) => ({
    keyword: `keyword ${i}`,
    rank: i % 7 === 0 ? null : i + 1,
  }));
  if (repeat && n > 3) ranks[n - 1] = { keyword: 'keyword 1', rank: 40 };
  return { kind: 'keywords', observedAt: at, asin: ASIN, marketplace: 'US', ranks };
}

/** Values the compact form holds, and some it cannot: fractions, negatives, -0, NaN, far-off and huge times. */
function pick(rand: () => number, at: number, odd: number): number {
  const u = rand();
  if (u < 1 - odd) return rand() < 0.5 ? at : at - Math.floor(rand() * 40) * HOUR;
  const odds = [0.5, -3, -0, Number.NaN, 2 ** 60, -(2 ** 60), at + 0.25, Number.MAX_VALUE, 1e-300];
  return odds[Math.floor(rand() * odds.length)]!;
}

function randomCondition(rand: () => number, at: number, odd: number): ConditionState {
  const baseline = rand() < 0.15 ? null : rand() < odd ? pick(rand, at, 1) : 1 + Math.floor(rand() * 300);
  const base = { baseline, baselineAt: pick(rand, at, odd), clearAt: pick(rand, at, odd) };
  const u = rand();
  if (u < 0.6) return { phase: 'clear', ...base };
  if (u < 0.8) return { phase: 'pending', ...base, count: rand() < odd ? 2.5 : 1 + Math.floor(rand() * 4) };
  return {
    phase: 'firing',
    ...base,
    firedAt: pick(rand, at, odd),
    lastNotifiedAt: pick(rand, at, odd),
    repeatCount: rand() < odd ? -1 : Math.floor(rand() * 9),
    ...randomWorst(rand, odd),
  };
}

/**
 * A firing's low point: absent as in state written before it was tracked (those bytes are what
 * the previous version wrote), unranked, a rank, or one the compact form cannot hold.
 */
function randomWorst(rand: () => number, odd: number): { worst?: number } {
  const u = rand();
  if (u < 0.3) return {};
  if (u < 0.45) return { worst: Number.POSITIVE_INFINITY };
  return { worst: rand() < odd ? 2.5 : 1 + Math.floor(rand() * 500) };
}

function randomState(seed: number, o: KeywordsObservation, odd: number): RuleState {
  const rand = seededRandom(seed);
  const repeatOf = findRepeats(o.ranks);
  const rules = new Map<string, KeywordColumns>();
  for (const id of ['kw', 'kw-2'].slice(0, 1 + Math.floor(rand() * 2))) {
    const columns = allocColumns(o.ranks.length);
    for (let i = 0; i < o.ranks.length; i++) {
      if ((repeatOf === null || repeatOf[i]! < 0) && rand() < 0.9) {
        writeEntry(columns, i, randomCondition(rand, o.observedAt, odd));
      }
    }
    rules.set(id, columns);
  }
  const conditions: Record<string, ConditionState> = {
    [`bsr|${ASIN}|US`]: randomCondition(rand, o.observedAt, odd),
  };
  return {
    conditions,
    keywords: { asin: o.asin, marketplace: o.marketplace, ranks: o.ranks, repeatOf, rules },
  };
}

/** Field by field with Object.is, so -0 and NaN must come back as they were. */
function expectSame(a: RuleState | undefined, b: RuleState): void {
  expect(a).toBeDefined();
  const x = conditionsOf(a!);
  const y = conditionsOf(b);
  expect(Object.keys(x)).toEqual(Object.keys(y));
  for (const key of Object.keys(y)) {
    const [p, q] = [x[key]!, y[key]!] as unknown as Record<string, unknown>[];
    expect(Object.keys(p!).sort(), key).toEqual(Object.keys(q!).sort());
    for (const field of Object.keys(q!))
      expect(Object.is(p![field], q![field]), `${key}.${field}`).toBe(true);
  }
  expect(a!.keywords?.repeatOf ?? null).toEqual(b.keywords?.repeatOf ?? null);
}

/** Bytes with the codec's checksum appended, so damaged layouts reach the parser. */
const sealed = (body: Uint8Array): Buffer => {
  const out = Buffer.alloc(body.length + 4);
  out.set(body);
  out.writeUInt32LE(crc32(body), body.length);
  return out;
};

/** The observation as the store gives it back: equal, but no object shared with the one encoded. */
const reread = <T extends Observation>(o: T): T => JSON.parse(JSON.stringify(o));

describe('rule-state codec', () => {
  it('round-trips random states exactly, falling back per rule where the compact form cannot hold a value', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const o = observation(1 + (seed % 40), T0 + seed * HOUR, seed % 3 === 0);
      const odd = seed % 4 === 0 ? 0.3 : 0;
      const state = randomState(seed, o, odd);
      expectSame(decodeRuleState(encodeRuleState(state, o), reread(o)), state);
    }
  });

  it('keeps a steady 1,000-keyword state to a few bytes a keyword', () => {
    const r = rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, for: 2 });
    const polls = [observation(1000, T0), observation(1000, T0 + HOUR), observation(1000, T0 + 2 * HOUR)];
    const { state, last } = run([r], polls);
    const bytes = encodeRuleState(state!, last!);
    expect(bytes.length).toBeLessThan(4 * 1000);
    expectSame(decodeRuleState(bytes, reread(last!)), state!);
    // One value the compact form cannot carry sends only that rule to the exact layout.
    const odd = structuredClone(state!);
    odd.keywords!.rules.get('kw')!.baseline[5] = 2.5;
    const oddBytes = encodeRuleState(odd, last!);
    expect(oddBytes.length).toBeGreaterThan(bytes.length);
    expect(decodeRuleState(oddBytes, last!)!.keywords!.rules.get('kw')!.baseline[5]).toBe(2.5);
  });

  it('stores states without keyword columns, and no state at all', () => {
    const { state, last } = run(
      [rule({ id: 'b', kind: 'bsr_worsened' })],
      [book(T0, 100, [100]), book(T0 + HOUR, 900, [100])],
    );
    expect(decodeRuleState(encodeRuleState(state!, last!), last!)).toEqual(state);
    expect(decodeRuleState(undefined, last!)).toBeUndefined();
    expect(decodeRuleState(null, last!)).toBeUndefined();
  });

  it('refuses to encode columns with an observation they were not judged on', () => {
    const o = observation(10);
    const state = randomState(1, o, 0);
    expect(() => encodeRuleState(state, observation(11))).toThrow(RuleStateEncodeError);
    expect(() => encodeRuleState(state, { ...o, marketplace: 'DE' })).toThrow(RuleStateEncodeError);
    expect(() => encodeRuleState(state, book(T0, 1))).toThrow(RuleStateEncodeError);
  });
});

describe('corrupt rule state', () => {
  const o = observation(30, T0, true);
  const good = encodeRuleState(randomState(7, o, 0.2), o);

  /** Decoding must end in a state or a RuleStateDecodeError, never anything else. */
  const outcome = (bytes: Uint8Array, with_: Observation = o): 'ok' | 'error' => {
    try {
      decodeRuleState(bytes, with_);
      return 'ok';
    } catch (error) {
      expect(error).toBeInstanceOf(RuleStateDecodeError);
      return 'error';
    }
  };

  it('every truncation is a RuleStateDecodeError', () => {
    for (let end = 0; end < good.length; end++)
      expect(outcome(good.subarray(0, end)), `${end}`).toBe('error');
    expect(outcome(Buffer.concat([good, Buffer.from([0])]))).toBe('error');
  });

  it('any damaged byte is caught by the checksum: a typed error, never a state that could alert', () => {
    const rand = seededRandom(99);
    for (let k = 0; k < 2_000; k++) {
      const bytes = Buffer.from(good);
      for (let f = 0; f < 1 + Math.floor(rand() * 3); f++) {
        bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
      }
      if (!bytes.equals(good)) expect(outcome(bytes)).toBe('error');
      expect(
        outcome(Buffer.from(Array.from({ length: Math.floor(rand() * 64) }, () => Math.floor(rand() * 256)))),
      ).toBe('error');
    }
  });

  it('bytes with a valid checksum but a broken layout give a state or a typed error, never a crash', () => {
    const rand = seededRandom(98);
    for (let k = 0; k < 2_000; k++) {
      const bytes = Buffer.from(good.subarray(0, good.length - 4));
      for (let f = 0; f < 1 + Math.floor(rand() * 3); f++) {
        bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
      }
      outcome(sealed(bytes.subarray(0, Math.floor(bytes.length * (0.5 + rand())))));
    }
  });

  it('columns that do not fit the observation stored with them are unreadable', () => {
    expect(outcome(good, observation(29))).toBe('error');
    expect(outcome(good, observation(30))).toBe('error'); // its repeat is not a repeat there
    expect(outcome(good, book(T0, 1))).toBe('error');
    const version = Buffer.from(good.subarray(0, good.length - 4));
    version[0] = 9;
    expect(() => decodeRuleState(sealed(version), o)).toThrow(/unsupported rule-state version 9/);
  });

  it('a legacy state that is not the old shape is unreadable', () => {
    for (const bad of [5, 'x', [], { n: 1 }, { conditions: { k: { phase: 'firing', baseline: 1 } } }]) {
      expect(() => decodeRuleState(bad, o)).toThrow(RuleStateDecodeError);
    }
  });
});

describe('legacy JSON rule state (record flag 1)', () => {
  const r = rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, for: 2, sendResolved: true });
  const polls = [
    keywords(T0, { 'cozy mystery': 4, 'a|b': 3, cat: 9, dragon: null }),
    keywords(T0 + HOUR, { 'cozy mystery': 20, 'a|b': 3, cat: 30, dragon: null }),
    keywords(T0 + 2 * HOUR, { 'cozy mystery': 21, 'a|b': 12, cat: 31, dragon: null }),
  ];
  /** The previous version's record: every condition keyed, as JSON. */
  const legacy = (state: RuleState) => JSON.parse(JSON.stringify({ conditions: conditionsOf(state) }));

  it('migrates every condition losslessly, `|` in keywords and other rules’ conditions included', () => {
    const { state, last } = run([r, rule({ id: 'b', kind: 'bsr_worsened' })], polls);
    const old = legacy(state!);
    old.conditions[`b|${ASIN}|US`] = { phase: 'clear', baseline: 7, baselineAt: T0, clearAt: T0 };
    const migrated = decodeRuleState(old, reread(last!))!;
    expect(conditionsOf(migrated)).toEqual(old.conditions);
    expect(Object.keys(migrated.conditions)).toEqual([`b|${ASIN}|US`]);
    expect(conditionsOf(migrated)[`kw|${ASIN}|US|cozy mystery`]).toMatchObject({ phase: 'firing' });
    expect(conditionsOf(migrated)[`kw|${ASIN}|US|a|b`]).toMatchObject({ phase: 'pending', count: 1 });
  });

  it('a keyword firing before the upgrade stays firing: no second alert, and its recovery keeps the episode', () => {
    const { state, last, alerts } = run([r], polls);
    expect(alerts.map((a) => factsOf(a).keyword)).toEqual(['cozy mystery', 'cat']);
    const migrated = decodeRuleState(legacy(state!), reread(last!));
    const still = keywords(T0 + 3 * HOUR, { 'cozy mystery': 22, 'a|b': 12, cat: 9, dragon: null });
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: still.observedAt };
    const upgraded = evaluate(ctx, [r], reread(last!), still, migrated);
    const unbroken = evaluate(ctx, [r], last, still, state);
    expect(upgraded.alerts).toEqual(unbroken.alerts);
    expect(upgraded.alerts.map((a) => `${a.kind} ${factsOf(a).keyword}`)).toEqual([
      'keyword_rank_drop a|b',
      'keyword_rank_recovered cat',
    ]);
    expect(conditionsOf(upgraded.state)).toEqual(conditionsOf(unbroken.state));
  });

  it('keeps a repeated keyword’s one condition at its first occurrence', () => {
    const o: KeywordsObservation = {
      ...polls[0]!,
      ranks: [...polls[0]!.ranks, { keyword: 'cat', rank: 50 }],
    };
    const old = {
      conditions: { [`kw|${ASIN}|US|cat`]: { phase: 'clear', baseline: 9, baselineAt: T0, clearAt: T0 } },
    };
    const migrated = decodeRuleState(old, o)!;
    const columns = migrated.keywords!.rules.get('kw')!;
    expect([...columns.head]).toEqual([0, 0, 1, 0, 0]);
    expect(migrated.keywords!.repeatOf).toEqual(Int32Array.from([-1, -1, -1, -1, 2]));
  });
});
