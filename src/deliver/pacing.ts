import type { Cluster, Redis } from 'ioredis';

// The key holds either the time the next message may go ("<ms>": after a send, or a Retry-After
// hold) or an in-flight send's booking ("b<ms>"). Scripts read both.
const READ = `
local function slot(key)
  local v = redis.call('GET', key)
  if not v then return 0, false end
  if string.sub(v, 1, 1) == 'b' then return tonumber(string.sub(v, 2)) or 0, true end
  return tonumber(v) or 0, false
end
`;

// KEYS: the slot. ARGV: now, booked-until, ttl. Returns {0, 0} and books the slot, or
// {time, 1 if a send is in flight}.
const ACQUIRE = `${READ}
local at, booked = slot(KEYS[1])
if tonumber(ARGV[1]) < at then return {at, booked and 1 or 0} end
redis.call('SET', KEYS[1], 'b' .. ARGV[2], 'PX', tonumber(ARGV[3]))
return {0, 0}
`;

// KEYS: the slot. ARGV: booked-until, next-allowed, ttl. Moves our own booking (only) to the time
// the next message may go; anything else there (a later booking, a Retry-After hold) is left alone.
const RELEASE = `
if redis.call('GET', KEYS[1]) == 'b' .. ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', tonumber(ARGV[3])) end
return 0
`;

// KEYS: the slot. ARGV: until, ttl. Pushes the next slot out (never in), e.g. after a 429.
const HOLD = `${READ}
local at = slot(KEYS[1])
if tonumber(ARGV[1]) > at then redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2])) end
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
    const [at, inFlight] = (await this.redis.eval(
      ACQUIRE,
      1,
      this.key(channelId),
      nowMs,
      bookedUntil,
      ttl,
    )) as [number, number];
    if (at === 0) return booking;
    // A send in flight is booked far ahead, but its release will bring the slot to its end +
    // interval: look again within an interval rather than at the booking's end. A hold (after a
    // send, or a Retry-After) is the real time to come back.
    return inFlight === 1 ? Math.min(at, nowMs + intervalMs) : at;
  }

  /**
   * The send of `booking` ended at `endMs`: the next message may go an interval later. With
   * `sent` false nothing went out, and the slot is free at once.
   */
  async release(booking: PaceBooking, endMs: number, sent = true): Promise<void> {
    if (booking.intervalMs <= 0) return;
    const next = sent ? Math.ceil(endMs + booking.intervalMs) : 0;
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
