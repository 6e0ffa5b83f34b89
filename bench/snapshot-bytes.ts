/**
 * Redis bytes per watched book for the keyword snapshot, against a JSON-string baseline and the
 * packed lower bound (keyword strings once + 4 bytes a rank), plus encode/decode time against
 * JSON.stringify/parse. Run: `npx tsx bench/snapshot-bytes.ts` (uses REDIS_URL, else starts a
 * private redis-server). Prints markdown tables.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import type { KeywordsObservation, Observation, TargetRef } from '../src/model/observation.ts';
import { type PrivateRedis, startPrivateRedis } from '../src/ops/private-redis.ts';
import { decodeDictionary, decodeObservation, encodeObservation } from '../src/snapshot/encoding.ts';
import { RedisSnapshotStore } from '../src/snapshot/store.ts';

const BOOKS = 20;
const KEYWORDS = 1000;
const LATER_SNAPSHOTS = 5;

/** Seeded PRNG (mulberry32), so every run measures the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'cozy mystery romance fantasy thriller dragon witch small town cat detective bakery murder ' +
  'enemies to lovers slow burn second chance billionaire paranormal shifter vampire academy ' +
  'space opera military science fiction dystopian epic sword sorcery historical regency duke ' +
  'christmas holiday beach read book club psychological suspense police procedural kindle ' +
  'unlimited free books for women men kids young adult series box set novel short stories ' +
  'über café señor naïve 東京 ミステリー'
).split(' ');

/** Keywords of 8–30 characters, as a search-term list looks; ranks 1..300 with ~10% unranked. */
function keywordList(seed: number): KeywordsObservation {
  const rand = prng(seed);
  const seen = new Set<string>();
  const ranks: KeywordsObservation['ranks'] = [];
  while (ranks.length < KEYWORDS) {
    let k = WORDS[Math.floor(rand() * WORDS.length)]!;
    const target = 8 + Math.floor(rand() * 23);
    while (k.length < target) k += ` ${WORDS[Math.floor(rand() * WORDS.length)]!}`;
    k = k.slice(0, 30).trim();
    if (k.length < 8 || seen.has(k)) continue;
    seen.add(k);
    ranks.push({ keyword: k, rank: rand() < 0.1 ? null : 1 + Math.floor(rand() * 300) });
  }
  return {
    kind: 'keywords',
    observedAt: 1_790_000_000_000,
    asin: `B0BENCH${String(seed).padStart(3, '0')}`,
    marketplace: 'US',
    ranks,
  };
}

function rerank(o: KeywordsObservation, seed: number): KeywordsObservation {
  const rand = prng(seed);
  return {
    ...o,
    observedAt: o.observedAt + seed * 3_600_000,
    ranks: o.ranks.map((r) => ({
      keyword: r.keyword,
      rank: rand() < 0.1 ? null : 1 + Math.floor(rand() * 300),
    })),
  };
}

function packedBound(o: KeywordsObservation): number {
  return o.ranks.reduce((n, r) => n + Buffer.byteLength(r.keyword) + 4, 0);
}

async function usage(redis: Redis, key: string): Promise<number> {
  return Number((await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0);
}

async function netIn(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_net_input_bytes:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

/**
 * µs per call of each function: rounds that alternate between them, median per function, so a
 * busy machine slows all of them alike instead of whichever happened to run during the spike.
 */
function timeUs(fns: Record<string, () => void>, iterations: number, rounds = 15): Record<string, number> {
  const samples: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(fns)) {
    samples[name] = [];
    for (let i = 0; i < 200; i++) fn(); // warm up the JIT
  }
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(fns)) {
      const start = performance.now();
      for (let i = 0; i < iterations; i++) fn();
      samples[name]!.push(((performance.now() - start) * 1000) / iterations);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, xs]) => [name, xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!]),
  );
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  let server: PrivateRedis | undefined;
  let url = process.env.REDIS_URL;
  if (url === undefined || url === '') {
    server = await startPrivateRedis();
    url = server.url;
  }
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const prefix = `{swbench-${randomBytes(4).toString('hex')}}`;
  const workspace = 'bench';
  try {
    const store = new RedisSnapshotStore({ redis, prefix });
    const books = Array.from({ length: BOOKS }, (_, i) => keywordList(i + 1));
    const targets: TargetRef[] = books.map((_, i) => ({
      workspace,
      kind: 'keywords',
      id: `keywords:B${i}:US`,
    }));
    const perBook = async (i: number) => {
      const o = books[i]!;
      const snap = await usage(redis, `${prefix}:snap:${workspace}:${targets[i]!.id}`);
      const dict = await usage(redis, `${prefix}:kwdict:${workspace}:${encodeObservation(o).dictionary!.id}`);
      const health = await usage(redis, `${prefix}:health:${workspace}:${targets[i]!.id}`);
      const index = (await usage(redis, `${prefix}:targets:${workspace}`)) / BOOKS;
      return { snap, dict, health, index, total: snap + dict + health + index };
    };

    const firstWire: number[] = [];
    for (let i = 0; i < BOOKS; i++) {
      const before = await netIn(redis);
      await store.commit(targets[i]!, { observation: books[i]!, ruleState: null, committedAt: 1 }, 0);
      firstWire.push((await netIn(redis)) - before);
      await store.setHealth(targets[i]!, {
        consecutiveFailures: 0,
        lastOutcome: 'ok',
        lastPollAt: 1_790_000_000_000,
        lastError: null,
        costPerPoll: 1,
        sourceHealth: undefined,
      });
    }
    const first = await Promise.all(books.map((_, i) => perBook(i)));
    const laterWire: number[] = [];
    for (let s = 1; s <= LATER_SNAPSHOTS; s++) {
      for (let i = 0; i < BOOKS; i++) {
        const before = await netIn(redis);
        const ok = await store.commit(
          targets[i]!,
          { observation: rerank(books[i]!, s), ruleState: null, committedAt: 1 + s },
          s,
        );
        laterWire.push((await netIn(redis)) - before);
        if (!ok) throw new Error(`commit ${s} of book ${i} lost its compare-and-set`);
      }
    }
    const steady = await Promise.all(books.map((_, i) => perBook(i)));
    const jsonBytes: number[] = [];
    for (let i = 0; i < BOOKS; i++) {
      const key = `${prefix}:json:${i}`;
      await redis.set(key, JSON.stringify(rerank(books[i]!, LATER_SNAPSHOTS)));
      jsonBytes.push(await usage(redis, key));
    }
    const bound = avg(books.map(packedBound));
    const jsonSize = avg(jsonBytes);
    const pick = (rows: Awaited<ReturnType<typeof perBook>>[], k: keyof (typeof rows)[number]) =>
      avg(rows.map((r) => r[k]));

    console.log(
      `## Redis bytes per watched book (${KEYWORDS} keywords, ${BOOKS} books, MEMORY USAGE SAMPLES 0)\n`,
    );
    console.log(
      '| layout | snapshot | dictionary | health | index share | total / book | × packed bound | vs JSON |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| packed lower bound (strings once + 4 B/rank) | | | | | ${fmt(bound)} | 1.00 | ${fmt(bound / jsonSize, 2)} |`,
    );
    console.log(
      `| JSON string of the observation (SET) | ${fmt(jsonSize)} | | | | ${fmt(jsonSize)} | ${fmt(jsonSize / bound, 2)} | 1.00 |`,
    );
    for (const [name, rows] of [
      ['shelfwatch, after the first snapshot', first],
      [`shelfwatch, steady state (after ${LATER_SNAPSHOTS} more)`, steady],
    ] as const) {
      const total = pick(rows, 'total');
      console.log(
        `| ${name} | ${fmt(pick(rows, 'snap'))} | ${fmt(pick(rows, 'dict'))} | ${fmt(pick(rows, 'health'))} | ${fmt(pick(rows, 'index'), 1)} | ${fmt(total)} | ${fmt(total / bound, 2)} | ${fmt(total / jsonSize, 2)} |`,
      );
    }
    const wireNote = server === undefined ? ' (REDIS_URL: other clients may add noise)' : '';
    console.log(
      `\nBytes sent to Redis per commit${wireNote}: first ${fmt(avg(firstWire))}, later ${fmt(avg(laterWire))}.\n`,
    );

    // ---- time --------------------------------------------------------------------------------
    const o = rerank(books[0]!, 1);
    const encoded = encodeObservation(o);
    const words = encoded.dictionary!.keywords;
    const n = 200;
    const t = timeUs(
      {
        json: () => JSON.parse(JSON.stringify(o)) as Observation,
        warm: () => decodeObservation(encodeObservation(o).bytes, words),
        cold: () => {
          const e = encodeObservation(o);
          decodeObservation(e.bytes, decodeDictionary(e.dictionary!.bytes, e.dictionary!.id));
        },
      },
      n,
    );
    const json = t.json!;
    console.log(`## Encode + decode time per ${KEYWORDS}-keyword snapshot (median of 15 rounds × ${n})\n`);
    console.log('| path | µs / snapshot | × JSON |');
    console.log('|---|---:|---:|');
    console.log(`| JSON.stringify + JSON.parse | ${fmt(json, 1)} | 1.00 |`);
    console.log(
      `| encode + decode, dictionary cached (steady state) | ${fmt(t.warm!, 1)} | ${fmt(t.warm! / json, 2)} |`,
    );
    console.log(
      `| encode + decode + dictionary decode and hash check (cold) | ${fmt(t.cold!, 1)} | ${fmt(t.cold! / json, 2)} |`,
    );
  } finally {
    let cursor = '0';
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = nextCursor;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
    await server?.stop();
  }
}

await main();
