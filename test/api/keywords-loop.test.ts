/**
 * The keyword loop (`loopBookKeywords` in src/api/schemas.ts) against its zod schema, the one
 * source of truth: on generated items, lists and bodies, valid and broken in every way we could
 * think of, both must accept and reject the same inputs and, when they accept, give the same value.
 */
import { describe, expect, it, vi } from 'vitest';
import { defaultContract } from '../../src/api/contract/compile.ts';
import { SchemaMismatchError } from '../../src/api/errors.ts';
import { type ResponseContext, schemaIssues, validateBody } from '../../src/api/response.ts';
import {
  bookKeywordSchema,
  bookKeywordsSchema,
  bookKeywordsValidator,
  loopBookKeywords,
} from '../../src/api/schemas.ts';
import { seededRandom } from '../../src/sim/prng.ts';

const listSchema = bookKeywordsSchema.shape.data;

/** Stands for "the field is absent". */
const MISSING = Symbol('missing');
const HUGE = 'k'.repeat(1_000_000);

// Per field: values zod accepts and values it rejects (the test does not rely on the split; it
// only makes sure both kinds are drawn). NaN and ±Infinity cannot come from JSON, but a loop that
// let them through would be wrong all the same.
const POOLS: Record<string, { ok: unknown[]; bad: unknown[] }> = {
  keyword: {
    ok: ['a', 'cozy mystery', 'ü', '東京', '😀', '\uD800', ' ', HUGE],
    bad: ['', 0, 1, null, MISSING, true, [], ['a'], {}, { length: 0 }, { length: 1 }, { length: '1' }, NaN],
  },
  rank: {
    ok: [null, 1, 2, 300, 1e9, 4_294_967_295],
    bad: [
      0,
      -0,
      -1,
      1.5,
      1 + Number.EPSILON * 2,
      Number.MIN_VALUE,
      4_294_967_296,
      2 ** 53,
      2 ** 53 + 2,
      2 ** 60,
      -(2 ** 60),
      NaN,
      Infinity,
      -Infinity,
      '1',
      '',
      true,
      [],
      [1],
      {},
      MISSING,
    ],
  },
  search_volume: {
    ok: [0, -0, 1, 90_000, 2 ** 53 - 1],
    bad: [-1, 0.5, 2 ** 53, 1e300, NaN, Infinity, -Infinity, '0', null, MISSING, true, [], {}],
  },
  traffic_share: {
    ok: [0, -0, 1, 0.5, 1e-320, Number.MIN_VALUE, 0.999999],
    bad: [-1e-9, 1.0000001, 2, NaN, Infinity, -Infinity, '0.5', null, MISSING, true, [], {}],
  },
};
const FIELDS = Object.keys(POOLS);
const EXTRAS: [string, unknown][] = [
  ['x_sim_unknown', { note: 'extra', level: 1 }],
  ['extra', HUGE],
  ['constructor', 'x'],
  ['toString', 1],
  ['rank_v2', 'nope'],
];

function item(fields: Record<string, unknown>, extras: [string, unknown][] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== MISSING) out[key] = value;
  for (const [key, value] of extras) out[key] = value;
  return out;
}

function validFields(rand: () => number): Record<string, unknown> {
  return Object.fromEntries(FIELDS.map((f) => [f, pick(POOLS[f]!.ok, rand)]));
}

function pick<T>(xs: readonly T[], rand: () => number): T {
  return xs[Math.floor(rand() * xs.length)]!;
}

/** Asserts that zod and the loop agree on one item, and on its value when they accept it. */
function agreeOnItem(candidate: unknown): boolean {
  const byZod = bookKeywordSchema.safeParse(candidate);
  const byLoop = loopBookKeywords([candidate]);
  // The message is built only on a disagreement: some inputs hold a 1 MB string.
  if ((byLoop !== undefined) !== byZod.success) expect.fail(`loop and zod disagree on ${show(candidate)}`);
  if (byZod.success) {
    expect(byLoop?.[0]).toStrictEqual(byZod.data);
    // toStrictEqual ignores key order; a consumer serialising the value would not.
    expect(Object.keys(byLoop?.[0] ?? {})).toEqual(Object.keys(byZod.data));
  }
  return byZod.success;
}

function show(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'number' && !Number.isFinite(v) ? String(v) : v,
  );
  return (text ?? String(value)).slice(0, 120);
}

function validItems(n: number, seed: number): Record<string, unknown>[] {
  const rand = seededRandom(seed);
  return Array.from({ length: n }, () => item(validFields(rand)));
}

describe('the keyword loop accepts exactly what bookKeywordSchema accepts', () => {
  it('every listed value in every field, the other fields valid', () => {
    const rand = seededRandom(1);
    let accepted = 0;
    let rejected = 0;
    for (const field of FIELDS) {
      for (const value of [...POOLS[field]!.ok, ...POOLS[field]!.bad]) {
        const ok = agreeOnItem(item({ ...validFields(rand), [field]: value }));
        if (ok) accepted++;
        else rejected++;
      }
    }
    expect(accepted).toBeGreaterThan(20);
    expect(rejected).toBeGreaterThan(50);
  });

  it('things that are not keyword objects, and objects of other kinds', () => {
    const fields = { keyword: 'a', rank: 1, search_volume: 0, traffic_share: 0 };
    const bare = Object.assign(Object.create(null) as object, fields);
    const inherited = Object.create(fields) as object;
    const arrayWithFields = Object.assign([], fields);
    const candidates = [
      null,
      undefined,
      0,
      'x',
      true,
      [],
      [fields],
      arrayWithFields,
      new Date(0),
      bare,
      inherited,
    ];
    const viaJson = JSON.parse('{"__proto__":{"keyword":"a"},"rank":1,"search_volume":0,"traffic_share":0}');
    for (const candidate of [...candidates, viaJson]) agreeOnItem(candidate);
    expect(agreeOnItem(bare)).toBe(true);
  });

  it('20,000 random mixes of good and bad fields, absent fields and unknown fields', () => {
    const rand = seededRandom(2);
    let accepted = 0;
    for (let n = 0; n < 20_000; n++) {
      const fields: Record<string, unknown> = {};
      for (const field of FIELDS) {
        const pool = rand() < 0.8 ? POOLS[field]!.ok : POOLS[field]!.bad;
        fields[field] = pick(pool, rand);
      }
      const extras = EXTRAS.filter(() => rand() < 0.2);
      if (agreeOnItem(item(fields, extras))) accepted++;
    }
    // Both outcomes are well represented, so neither side of the comparison goes untested.
    expect(accepted).toBeGreaterThan(5_000);
    expect(accepted).toBeLessThan(15_000);
  });

  it('whole lists: empty, full, one too many, one bad item anywhere, holes, not a list', () => {
    const full = validItems(1000, 3);
    const lists: unknown[] = [
      [],
      full,
      validItems(1001, 4),
      new Array(3),
      null,
      undefined,
      {},
      'x'.repeat(2000),
    ];
    lists.push({ length: 5 }, 5);
    const rand = seededRandom(5);
    for (let n = 0; n < 40; n++) {
      const broken = [...full];
      const field = pick(FIELDS, rand);
      broken[Math.floor(rand() * broken.length)] = item({
        ...validFields(rand),
        [field]: pick(POOLS[field]!.bad, rand),
      });
      lists.push(broken);
    }
    for (const list of lists) {
      const byZod = listSchema.safeParse(list);
      const byLoop = loopBookKeywords(list);
      if ((byLoop !== undefined) !== byZod.success) expect.fail(`loop and zod disagree on ${show(list)}`);
      if (byZod.success) expect(byLoop).toStrictEqual(byZod.data);
    }
  });
});

describe('bookKeywordsValidator, as the client uses it', () => {
  const good = { asin: 'B0BENCH001', data: validItems(1000, 6) };
  const withBad = (at: number, patch: Record<string, unknown>) => ({
    ...good,
    data: good.data.map((k, i) => (i === at ? { ...k, ...patch } : k)),
  });

  it('answers like bookKeywordsSchema on whole bodies: same success, value and issues', () => {
    const bodies: unknown[] = [
      good,
      { ...good, extra: HUGE },
      { ...good, asin: 'b0-not-an-asin' },
      { data: good.data },
      { asin: good.asin },
      { asin: good.asin, data: null },
      { ...good, data: validItems(1001, 7) },
      withBad(512, { rank: 1.5 }),
      { ...withBad(3, { keyword: '' }), data: withBad(3, { keyword: '' }).data.with(900, { nope: 1 }) },
      null,
      [],
      'text',
    ];
    for (const body of bodies) {
      const expected = bookKeywordsSchema.safeParse(body);
      const actual = bookKeywordsValidator.safeParse(body);
      if (actual.success !== expected.success) expect.fail(`validator and zod disagree on ${show(body)}`);
      if (expected.success) expect(actual.data).toStrictEqual(expected.data);
      else expect(schemaIssues(actual.error!)).toEqual(schemaIssues(expected.error));
    }
  });

  it('leaves zod out of a valid body (the loop decides), and uses it for a broken one', () => {
    const spy = vi.spyOn(bookKeywordsSchema, 'safeParse');
    try {
      expect(bookKeywordsValidator.safeParse(good).success).toBe(true);
      expect(spy).not.toHaveBeenCalled();
      expect(bookKeywordsValidator.safeParse(withBad(0, { rank: 0 })).success).toBe(false);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  const ctx: ResponseContext = {
    endpoint: 'GET /v1/books/{asin}/keywords',
    now: Date.now,
    contract: defaultContract(),
  };
  const validate = (body: unknown) =>
    validateBody(bookKeywordsValidator, body, ctx, { status: 200, requestId: 'r1', rateLimit: {} });

  it('reports a bad item with the typed error and its path, as before', () => {
    const error = (() => {
      try {
        validate(withBad(512, { rank: 1.5 }));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(SchemaMismatchError);
    const mismatch = error as SchemaMismatchError;
    expect(mismatch).toMatchObject({
      status: 200,
      code: 'schema_mismatch',
      retryable: false,
      requestId: 'r1',
    });
    expect(mismatch.issues).toEqual([
      { path: 'data[512].rank', message: 'Invalid input: expected int, received number' },
    ]);
    expect(mismatch.message).toBe(
      'GET /v1/books/{asin}/keywords answered a body that does not match the assumed contract at data[512].rank: Invalid input: expected int, received number',
    );
  });

  it('never echoes a hostile string from the body', () => {
    const body = withBad(7, { keyword: HUGE, rank: HUGE, search_volume: HUGE, [HUGE.slice(0, 1000)]: HUGE });
    let caught: unknown;
    try {
      validate(body);
    } catch (e) {
      caught = e;
    }
    const mismatch = caught as SchemaMismatchError;
    expect(mismatch.issues.map((i) => i.path)).toEqual(['data[7].rank', 'data[7].search_volume']);
    expect(mismatch.message.length).toBeLessThan(300);
    expect(JSON.stringify(mismatch.toJSON()).length).toBeLessThan(1_000);
  });
});
