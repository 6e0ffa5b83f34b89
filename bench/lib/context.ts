/**
 * What every benchmark module gets from `bench/run.ts`, and what it hands back. A benchmark is
 * `bench/<name>.ts` exporting `run(ctx): Promise<BenchResult>`.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export interface BenchContext {
  readonly name: string;
  readonly redisUrl: string;
  /** True when Redis is a private server started for this run: server-wide figures are then clean. */
  readonly privateRedis: boolean;
  /** A short smoke run: fewer rounds, smaller sizes; numbers are not for the docs. */
  readonly quick: boolean;
  /** The long variants (e.g. the full budget matrix). */
  readonly full: boolean;
  /** `--scenarios a,b`: run only these scenarios of a benchmark that has several (budget). */
  readonly scenarios: readonly string[] | undefined;
  /** The repository root, for benchmarks that read earlier results. */
  readonly root: string;
  /** A fresh hash-tagged key prefix; every key under it is deleted when the benchmark ends. */
  prefix(label?: string): string;
  /** A new connection (maxRetriesPerRequest: null, as BullMQ needs); closed when the benchmark ends. */
  redis(): Redis;
  /** Runs when the benchmark ends, before its keys are deleted; last registered runs first. */
  defer(fn: () => Promise<unknown> | unknown): void;
  log(message: string): void;
}

export interface SummaryRow {
  metric: string;
  value: string;
  /** What the value is measured against (a floor, a baseline, a bound). */
  reference?: string;
  ratio?: string;
  goal?: string;
  /** true met, false missed, null/undefined no goal. */
  met?: boolean | null;
}

export interface BenchResult {
  title: string;
  /** Headline rows for the suite's table. */
  summary: SummaryRow[];
  /** Markdown with the benchmark's own tables. */
  details: string;
  /** Raw figures for the JSON file. */
  data?: unknown;
}

export type BenchmarkModule = { run(ctx: BenchContext): Promise<BenchResult> };

/** Builds a context and the function that tears it down (deferred work, keys, connections). */
export function createContext(options: {
  name: string;
  redisUrl: string;
  privateRedis: boolean;
  quick: boolean;
  full: boolean;
  scenarios: readonly string[] | undefined;
  root: string;
}): { ctx: BenchContext; close(): Promise<void> } {
  const prefixes: string[] = [];
  const connections: Redis[] = [];
  const deferred: (() => Promise<unknown> | unknown)[] = [];
  const ctx: BenchContext = {
    ...options,
    prefix(label = options.name) {
      const prefix = `{swbench-${label}-${randomBytes(4).toString('hex')}}`;
      prefixes.push(prefix);
      return prefix;
    },
    redis() {
      const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
      connections.push(redis);
      return redis;
    },
    defer(fn) {
      deferred.push(fn);
    },
    log(message) {
      console.error(`[${options.name}] ${message}`);
    },
  };
  return {
    ctx,
    async close() {
      for (const fn of deferred.reverse()) {
        try {
          await fn();
        } catch (error) {
          ctx.log(`clean-up step failed: ${(error as Error).message}`);
        }
      }
      const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
      try {
        for (const prefix of prefixes) await deletePrefix(redis, prefix);
      } finally {
        await redis.quit();
        for (const connection of connections) {
          if (connection.status !== 'end') await connection.quit().catch(() => connection.disconnect());
        }
      }
    },
  };
}

/** Deletes every key under `prefix` (SCAN, never KEYS or FLUSH: Redis may be shared). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  // A prefix contains `{` and `}`, which are not glob characters; `*`, `?`, `[` would be.
  const pattern = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
