import type { Cluster, Redis } from 'ioredis';

// KEYS: next-allowed. ARGV: now, interval. Returns 0 and books the slot, or the time to come back.
const ACQUIRE = `
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
local now = tonumber(ARGV[1])
if now < nextAt then return nextAt end
redis.call('SET', KEYS[1], now + tonumber(ARGV[2]), 'PX', tonumber(ARGV[2]) + 60000)
return 0
`;

// KEYS: next-allowed. ARGV: until. Pushes the next slot out (never in), e.g. after a 429.
const HOLD = `
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > nextAt then redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2])) end
return 0
`;

/**
 * Per-channel pacing shared by every worker process: at most one message per `intervalMs` (Slack
 * allows about one a second per webhook, and apps that keep sending into 429s get disabled).
 */
export class ChannelPacer {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
  ) {}

  private key(channelId: string): string {
    return `${this.prefix}:pace:${channelId}`;
  }

  /** 0 when the caller may send now (the slot is booked), else the time to try again. */
  async acquire(channelId: string, nowMs: number, intervalMs: number): Promise<number> {
    if (intervalMs <= 0) return 0;
    return Number(await this.redis.eval(ACQUIRE, 1, this.key(channelId), nowMs, intervalMs));
  }

  async holdUntil(channelId: string, untilMs: number, nowMs: number): Promise<void> {
    await this.redis.eval(HOLD, 1, this.key(channelId), untilMs, Math.max(1, untilMs - nowMs) + 60_000);
  }
}
