import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { z } from 'zod';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { DAY_MS } from '../util/time-units.ts';
import { digestStateKey } from './keys.ts';
import type { LastDigest } from './types.ts';

/**
 * What the digest keeps in Redis, per workspace and recipient channel: the last digest sent (the
 * next one lists revisions and moves against it) and a record per local date of digests sent, so a
 * re-run after a crash sends nothing twice. Both are written together, only after the channel
 * confirmed the send (at-least-once: a process dying between the two can still send twice).
 * Figures and ids only: nothing here is a secret or public free text.
 */
const DEFAULT_TTL_MS = 40 * DAY_MS;

const money = z.object({ minor: z.number().int(), currency: z.string() });
const lastDigestSchema = z.object({
  version: z.literal(1),
  day: z.string(),
  builtAtMs: z.number(),
  salesFrom: z.string().nullable(),
  salesTo: z.string().nullable(),
  sales: z.array(
    z.object({
      asin: z.string(),
      marketplace: z.string(),
      date: z.string(),
      units: z.number().int(),
      royalties: money,
      adSpend: money,
    }),
  ),
  keywordRanks: z.array(
    z.object({ asin: z.string(), marketplace: z.string(), keyword: z.string(), rank: z.number().nullable() }),
  ),
  reviewIds: z.array(z.string()),
  sentiment: z
    .array(
      z.object({
        asin: z.string(),
        marketplace: z.string(),
        averageRating: z.number().nullable(),
        net: z.number().nullable(),
      }),
    )
    .optional(),
});

const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
const RENEW_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;

/** A recipient's lock while it is held: renewed by a timer until released. */
export interface DigestLock {
  release(): Promise<void>;
}

export class DigestStateStore {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: KeyPrefix,
    private readonly ttlMs = DEFAULT_TTL_MS,
  ) {}

  private key(kind: 'last' | 'sent' | 'lock', workspace: string, channel: string, date?: string): string {
    return digestStateKey(this.prefix, kind, workspace, channel, date);
  }

  /** The last digest sent to this recipient, or null (none yet, or a record this version cannot read). */
  async getLast(workspace: string, channel: string): Promise<LastDigest | null> {
    const raw = await this.redis.get(this.key('last', workspace, channel));
    if (raw === null) return null;
    try {
      const parsed = lastDigestSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  async wasSent(workspace: string, channel: string, date: string): Promise<boolean> {
    return (await this.redis.exists(this.key('sent', workspace, channel, date))) === 1;
  }

  /**
   * After a confirmed send: stores the digest as the last one and, for a scheduled digest, marks
   * its local date as sent. One MULTI, so the two never disagree.
   */
  async recordSent(
    workspace: string,
    channel: string,
    options: { last: LastDigest; atMs: number; localDate: string | null },
  ): Promise<void> {
    const multi = this.redis.multi();
    multi.set(this.key('last', workspace, channel), JSON.stringify(options.last), 'PX', this.ttlMs);
    if (options.localDate !== null)
      multi.set(
        this.key('sent', workspace, channel, options.localDate),
        String(options.atMs),
        'PX',
        this.ttlMs,
      );
    const results = await multi.exec();
    const failed = results?.find(([error]) => error !== null);
    if (results === null || failed !== undefined) {
      throw new Error(`storing the digest record failed: ${failed?.[0]?.message ?? 'transaction aborted'}`);
    }
  }

  /**
   * Keeps two processes (a retried job and a stalled one, or `digest --now` at the same moment)
   * from building and sending the same recipient's digest at once. The lock lives `ttlMs` and the
   * holder renews it every third of that while it works, so a killed holder's lock is gone within
   * `ttlMs` and the retry sends (a 10-minute lock held by a dead process blocked it). Returns the
   * held lock, or undefined with the time left on the other holder's lock.
   */
  async lock(
    workspace: string,
    channel: string,
    ttlMs: number,
  ): Promise<{ held: DigestLock } | { heldForMs: number }> {
    const key = this.key('lock', workspace, channel);
    const token = randomBytes(8).toString('hex');
    const ok = await this.redis.set(key, token, 'PX', ttlMs, 'NX');
    if (ok !== 'OK') return { heldForMs: Math.max(0, await this.redis.pttl(key)) };
    // A renewal that finds the lock gone (Redis forgot it) lets the send finish: at-least-once, a
    // duplicate digest is possible, a lost one is not.
    const renew = setInterval(
      () => {
        this.redis.eval(RENEW_LOCK, 1, key, token, ttlMs).catch(() => {});
      },
      Math.floor(ttlMs / 3),
    );
    renew.unref();
    return {
      held: {
        release: async () => {
          clearInterval(renew);
          await this.redis.eval(RELEASE_LOCK, 1, key, token);
        },
      },
    };
  }
}
