import type { Cluster, Redis } from 'ioredis';

// KEYS: next-allowed. ARGV: now, booked-until, ttl. Returns 0 and books the slot, or the time to come back.
const ACQUIRE = `
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) < nextAt then return nextAt end
redis.call('SET', KEYS[1], ARGV[2], 'PX', tonumber(ARGV[3]))
return 0
`;

// KEYS: next-allowed. ARGV: booked-until, next-allowed, ttl. Moves our own booking (only) to the
// time the next message may go; anything else there (a Retry-After hold) is left alone.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', tonumber(ARGV[3])) end
return 0
`;

// KEYS: next-allowed. ARGV: until, ttl. Pushes the next slot out (never in), e.g. after a 429.
const HOLD = `
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > nextAt then redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2])) end
return 0
`;

/**
 * How long a slot stays booked while its message is being sent: longer than a send can take
 * (Slack's request deadline is 10 s, plus rendering a big group). A process that dies mid-send
 * leaves the channel paused this long at most.
 */
export const SEND_HOLD_MS = 30_000;

/** A booked slot: `release` it when the send has ended, whatever its outcome. */
export interface PaceBooking {
  readonly channelId: string;
  readonly bookedUntil: string;
  readonly intervalMs: number;
}

/**
 * Per-channel pacing shared by every worker process: at most one message per `intervalMs` (Slack
 * allows about one a second per webhook, and apps that keep sending into 429s get disabled).
 *
 * A message lands somewhere during its send, so the interval is counted from the end of one send
 * to the start of the next: the slot is booked for the whole send (`SEND_HOLD_MS`), and released to
 * end + interval when the send ends. Booking only `start + interval` let a send that took longer
 * than the interval overlap the next one (two messages 0.2 s apart in a test).
 */
export class ChannelPacer {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
  ) {}

  private key(channelId: string): string {
    return `${this.prefix}:pace:${channelId}`;
  }

  /** A booking when the caller may send now, else the time to look again. */
  async acquire(channelId: string, nowMs: number, intervalMs: number): Promise<PaceBooking | number> {
    const bookedUntil = String(Math.ceil(nowMs + SEND_HOLD_MS + intervalMs));
    const booking: PaceBooking = { channelId, bookedUntil, intervalMs };
    if (intervalMs <= 0) return booking;
    const ttl = SEND_HOLD_MS + intervalMs + 60_000;
    const nextAt = Number(await this.redis.eval(ACQUIRE, 1, this.key(channelId), nowMs, bookedUntil, ttl));
    if (nextAt === 0) return booking;
    // While a send is in flight its booking reaches far ahead, but its release will bring the slot
    // to the send's end + interval: look again within an interval rather than at the booking's end.
    return Math.min(nextAt, nowMs + intervalMs);
  }

  /** The send of `booking` ended at `endMs`: the next message may go an interval later. */
  async release(booking: PaceBooking, endMs: number): Promise<void> {
    if (booking.intervalMs <= 0) return;
    const next = Math.ceil(endMs + booking.intervalMs);
    await this.redis.eval(
      RELEASE,
      1,
      this.key(booking.channelId),
      booking.bookedUntil,
      String(next),
      booking.intervalMs + 60_000,
    );
  }

  async holdUntil(channelId: string, untilMs: number, nowMs: number): Promise<void> {
    await this.redis.eval(HOLD, 1, this.key(channelId), untilMs, Math.max(1, untilMs - nowMs) + 60_000);
  }
}
