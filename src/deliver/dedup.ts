import type { Cluster, Redis } from 'ioredis';
import { DAY_MS } from '../util/time-units.ts';
import { sentKey, unconfirmedKey } from './keys.ts';

/**
 * The notification log: written only after a channel confirmed a send (at-least-once). A duplicate
 * can still happen if a process dies between the channel's confirmation and this write, or when a
 * send got no answer after its request went out (counted here, so it is re-sent only once).
 */
export class DedupLog {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
    private readonly ttlMs = 30 * DAY_MS,
  ) {}

  private key(fingerprint: string, channelId: string): string {
    return sentKey(this.prefix, fingerprint, channelId);
  }

  private unconfirmedKey(fingerprint: string, channelId: string): string {
    return unconfirmedKey(this.prefix, fingerprint, channelId);
  }

  /**
   * Counts a send of these alerts that may or may not have been shown (it timed out after the
   * request went out); returns the most sends any of them has had without a confirmation.
   */
  async recordUnconfirmed(fingerprints: readonly string[], channelId: string): Promise<number> {
    if (fingerprints.length === 0) return 0;
    const batch = this.redis.pipeline();
    for (const fingerprint of fingerprints) {
      batch.incr(this.unconfirmedKey(fingerprint, channelId));
      batch.pexpire(this.unconfirmedKey(fingerprint, channelId), this.ttlMs);
    }
    const results = (await batch.exec()) ?? [];
    const counts = results
      .filter((_, i) => i % 2 === 0)
      .map(([error, count]) => {
        if (error) throw error;
        return Number(count);
      });
    return Math.max(0, ...counts);
  }

  async wasSent(fingerprint: string, channelId: string): Promise<boolean> {
    return (await this.redis.exists(this.key(fingerprint, channelId))) === 1;
  }

  /** Which of `fingerprints` the log already records as sent on this channel. */
  async sentAmong(fingerprints: readonly string[], channelId: string): Promise<Set<string>> {
    if (fingerprints.length === 0) return new Set();
    const batch = this.redis.pipeline();
    for (const fingerprint of fingerprints) batch.exists(this.key(fingerprint, channelId));
    const results = (await batch.exec()) ?? [];
    return new Set(fingerprints.filter((_, i) => results[i]?.[1] === 1));
  }

  async recordSentMany(fingerprints: readonly string[], channelId: string, atMs: number): Promise<void> {
    if (fingerprints.length === 0) return;
    const batch = this.redis.pipeline();
    for (const fingerprint of fingerprints)
      batch.set(this.key(fingerprint, channelId), String(atMs), 'PX', this.ttlMs);
    await batch.exec();
  }
}
