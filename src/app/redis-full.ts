/**
 * A full Redis (`maxmemory` with `noeviction`) refuses every write with `OOM command not allowed`,
 * and each BullMQ worker turns each refusal into an `error` event: tens of thousands a second. This
 * says it once per stretch (a warning at the start, one line with the count suppressed when writes
 * go through again), counts the refusals (`shelfwatch_redis_oom_errors_total`) and keeps
 * `shelfwatch_redis_writable`; `/readyz` probes with a write (`probeWrite`), not PING.
 */
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.ts';
import type { Metrics } from '../ops/metrics.ts';

export function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && /\bOOM\b/.test(error.message);
}

/** A stretch of refused writes that has just ended. */
export interface FullStretch {
  since: number;
  fullForMs: number;
  /** Refusals counted in it (the first one logged, the rest suppressed). */
  refused: number;
}

export class RedisFullWatch {
  private stretchStartedAt: number | undefined;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly now: () => number = Date.now,
    /** Told once a stretch ends (start.ts: the `redis_writable` alert, schedulers restarted). */
    private readonly onWritable?: (stretch: FullStretch) => void,
  ) {}

  /** True when the error was a refusal for want of memory (said here, once per stretch). */
  report(error: unknown): boolean {
    if (!isOutOfMemory(error)) return false;
    this.metrics.redisOom(1);
    this.metrics.redisWritable(false);
    if (this.stretchStartedAt === undefined) {
      this.stretchStartedAt = this.now();
      this.logger.warn(
        { err: error },
        'Redis is full (maxmemory): writes are refused; polls and deliveries wait until memory is freed (further refusals are counted, not logged)',
      );
    } else this.suppressed += 1;
    return true;
  }

  /** A write went through: the stretch, if any, is over. */
  writable(): void {
    this.metrics.redisWritable(true);
    if (this.stretchStartedAt === undefined) return;
    const stretch = {
      since: this.stretchStartedAt,
      fullForMs: this.now() - this.stretchStartedAt,
      refused: this.suppressed + 1,
    };
    this.logger.info(
      { suppressed: this.suppressed, fullMs: stretch.fullForMs },
      'Redis accepts writes again',
    );
    this.stretchStartedAt = undefined;
    this.suppressed = 0;
    this.onWritable?.(stretch);
  }

  get full(): boolean {
    return this.stretchStartedAt !== undefined;
  }
}

/** The readiness probe: a short-lived write, so a Redis that answers PING but refuses writes is not ready. */
export async function probeWrite(redis: Redis | Cluster, key: string, full: RedisFullWatch): Promise<void> {
  try {
    await redis.set(key, '1', 'PX', 10_000);
  } catch (error) {
    full.report(error);
    throw error;
  }
  full.writable();
}
