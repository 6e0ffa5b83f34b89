/**
 * Redis bytes per watched book for the keyword snapshot alone (no rule state: see `memory` for
 * everything the rules keep), against a JSON-string baseline and the packed lower bound (keyword
 * strings once + 4 bytes a rank), plus encode/decode time against JSON.stringify/parse.
 *
 * Part of the suite (`npm run bench -- --only snapshot-bytes`), and still runnable alone:
 * `npx tsx bench/snapshot-bytes.ts` (REDIS_URL, else a private redis-server) prints the tables.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import type { Observation, TargetRef } from '../src/model/observation.ts';
import { decodeDictionary, decodeObservation, encodeObservation } from '../src/snapshot/encoding.ts';
import { RedisSnapshotStore } from '../src/snapshot/store.ts';
import { type PrivateRedis, startPrivateRedis } from '../src/tools/private-redis.ts';
import { type BenchContext, type BenchResult, deletePrefix } from './lib/context.ts';
import { fmt, table, times } from './lib/format.ts';
import { keywordList, packedBound, rerank } from './lib/keywords.ts';
import { mean, timeSync } from './lib/stats.ts';

const BOOKS = 20;
const KEYWORDS = 1000;
const LATER_SNAPSHOTS = 5;

export async function usage(redis: Redis, key: string): Promise<number> {
  return Number((await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0);
}

async function netIn(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_net_input_bytes:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

interface BookBytes {
  snap: number;
  dict: number;
  health: number;
  index: number;
  total: number;
}

export interface SnapshotBytes {
  bound: number;
  json: number;
  first: BookBytes;
  steady: BookBytes;
  wire: { first: number; later: number };
  timeUs: Record<string, number>;
  markdown: string;
}

export async function measure(
  redis: Redis,
  prefix: string,
  opts: { privateRedis: boolean },
): Promise<SnapshotBytes> {
  const workspace = 'bench';
  const store = new RedisSnapshotStore({ redis, prefix });
  const books = Array.from({ length: BOOKS }, (_, i) => keywordList(i + 1));
  const targets: TargetRef[] = books.map((_, i) => ({
    workspace,
    kind: 'keywords',
    id: `keywords:B${i}:US`,
  }));
  const perBook = async (i: number): Promise<BookBytes> => {
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
      const next = { observation: rerank(books[i]!, s), ruleState: null, committedAt: 1 + s };
      const ok = await store.commit(targets[i]!, next, s);
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
  const bound = mean(books.map(packedBound));
  const json = mean(jsonBytes);
  const avgOf = (rows: BookBytes[]): BookBytes => ({
    snap: mean(rows.map((r) => r.snap)),
    dict: mean(rows.map((r) => r.dict)),
    health: mean(rows.map((r) => r.health)),
    index: mean(rows.map((r) => r.index)),
    total: mean(rows.map((r) => r.total)),
  });
  const firstAvg = avgOf(first);
  const steadyAvg = avgOf(steady);

  const o = rerank(books[0]!, 1);
  const encoded = encodeObservation(o);
  const words = encoded.dictionary!.keywords;
  const n = 200;
  const timed = timeSync(
    {
      json: () => JSON.parse(JSON.stringify(o)) as Observation,
      warm: () => decodeObservation(encodeObservation(o).bytes, words),
      cold: () => {
        const e = encodeObservation(o);
        return decodeObservation(e.bytes, decodeDictionary(e.dictionary!.bytes, e.dictionary!.id));
      },
    },
    n,
    15,
    200,
  );
  const t = timed.medians;
  const layout = (name: string, b: BookBytes) => [
    name,
    fmt(b.snap),
    fmt(b.dict),
    fmt(b.health),
    fmt(b.index, 1),
    fmt(b.total),
    fmt(b.total / bound, 2),
    fmt(b.total / json, 2),
  ];
  const wireNote = opts.privateRedis ? '' : ' (REDIS_URL: other clients may add noise)';
  const markdown = [
    `## Redis bytes per watched book (${KEYWORDS} keywords, ${BOOKS} books, MEMORY USAGE SAMPLES 0)\n`,
    table(
      [
        'layout',
        'snapshot',
        'dictionary',
        'health',
        'index share',
        'total / book',
        '× packed bound',
        'vs JSON',
      ],
      [
        [
          'packed lower bound (strings once + 4 B/rank)',
          '',
          '',
          '',
          '',
          fmt(bound),
          '1.00',
          fmt(bound / json, 2),
        ],
        [
          'JSON string of the observation (SET)',
          fmt(json),
          '',
          '',
          '',
          fmt(json),
          fmt(json / bound, 2),
          '1.00',
        ],
        layout('shelfwatch, after the first snapshot', firstAvg),
        layout(`shelfwatch, steady state (after ${LATER_SNAPSHOTS} more)`, steadyAvg),
      ],
    ),
    `\nBytes sent to Redis per commit${wireNote}: first ${fmt(mean(firstWire))}, later ${fmt(mean(laterWire))}.\n`,
    `## Encode + decode time per ${KEYWORDS}-keyword snapshot (median of 15 rounds × ${n})\n`,
    table(
      ['path', 'µs / snapshot', '× JSON'],
      [
        ['JSON.stringify + JSON.parse', fmt(t.json!, 1), '1.00'],
        ['encode + decode, dictionary cached (steady state)', fmt(t.warm!, 1), fmt(t.warm! / t.json!, 2)],
        [
          'encode + decode + dictionary decode and hash check (cold)',
          fmt(t.cold!, 1),
          fmt(t.cold! / t.json!, 2),
        ],
      ],
    ),
  ].join('\n');
  return {
    bound,
    json,
    first: firstAvg,
    steady: steadyAvg,
    wire: { first: mean(firstWire), later: mean(laterWire) },
    timeUs: t,
    markdown,
  };
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const m = await measure(ctx.redis(), ctx.prefix(), { privateRedis: ctx.privateRedis });
  return {
    title: 'Snapshot bytes and encode/decode time (keyword snapshot only)',
    summary: [
      {
        metric: 'snapshot bytes / book, no rule state',
        value: fmt(m.steady.total),
        reference: `packed bound ${fmt(m.bound)}, JSON ${fmt(m.json)}`,
        ratio: times(m.steady.total / m.bound),
      },
      {
        metric: 'encode + decode (warm)',
        value: `${fmt(m.timeUs.warm!, 0)} µs`,
        reference: `JSON round trip ${fmt(m.timeUs.json!, 0)} µs`,
        ratio: times(m.timeUs.warm! / m.timeUs.json!),
      },
    ],
    details: m.markdown.replace(/^## /gm, '#### '),
    data: m,
  };
}

async function main(): Promise<void> {
  let server: PrivateRedis | undefined;
  let url = process.env.REDIS_URL;
  if (url === undefined || url === '') {
    server = await startPrivateRedis();
    url = server.url;
  }
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const prefix = `{swbench-${randomBytes(4).toString('hex')}}`;
  try {
    console.log((await measure(redis, prefix, { privateRedis: server !== undefined })).markdown);
  } finally {
    await deletePrefix(redis, prefix);
    await redis.quit();
    await server?.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
