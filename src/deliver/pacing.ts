import type { Cluster, Redis } from 'ioredis';
import { SCRIPT_NOW_LUA, type TimeBasis, timeBasis, toClockTime, toScriptMs } from '../budget/time-basis.ts';
import type { Clock } from '../util/clock.ts';
import { paceKey } from './keys.ts';

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

// Times are script ms (time-basis.ts): Redis TIME for real-time clocks, so every process paces
// a channel with the same clock; ARGV "now" is 'redis' or the manual clock's ms.

// KEYS: the slot. ARGV: now, booking length, ttl. Returns {0, 0, booked-until, now} and books the
// slot, or {time, 1 if a send is in flight, '', now}.
const ACQUIRE = `${READ}${SCRIPT_NOW_LUA}
local now = scriptNow(ARGV[1])
local at, booked = slot(KEYS[1])
if now < at then return {timeReply(at), booked and 1 or 0, '', timeReply(now)} end
local bookedUntil = tostring(math.ceil(now + tonumber(ARGV[2])))
redis.call('SET', KEYS[1], 'b' .. bookedUntil, 'PX', tonumber(ARGV[3]))
return {'0', 0, bookedUntil, timeReply(now)}
`;

// KEYS: the slot. ARGV: booked-until, now, interval (0: nothing was sent), ttl. Moves our own
// booking (only) to the time the next message may go; anything else there (a later booking, a
// Retry-After hold) is left alone.
const RELEASE = `${SCRIPT_NOW_LUA}
if redis.call('GET', KEYS[1]) ~= 'b' .. ARGV[1] then return 0 end
local interval = tonumber(ARGV[3])
local nextAt = 0
if interval > 0 then nextAt = math.ceil(scriptNow(ARGV[2]) + interval) end
redis.call('SET', KEYS[1], tostring(nextAt), 'PX', tonumber(ARGV[4]))
return 0
`;

// KEYS: the slot. ARGV: now, how long, ttl. Pushes the next slot out (never in), e.g. after a 429.
const HOLD = `${READ}${SCRIPT_NOW_LUA}
local untilMs = math.ceil(scriptNow(ARGV[1]) + tonumber(ARGV[2]))
local at = slot(KEYS[1])
if untilMs > at then redis.call('SET', KEYS[1], tostring(untilMs), 'PX', tonumber(ARGV[3])) end
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
  /**
   * With `clock` (the engine's), the scripts take their time from Redis TIME at the clock's rate and
   * the `nowMs`/`endMs` arguments only anchor the conversion back to clock times; without one (unit
   * tests with hand-set times), those arguments are the time.
   */
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
    private readonly clock?: Clock,
  ) {}

  /** The time basis anchored at the caller's `nowMs` (see time-basis.ts). */
  private basis(nowMs: number): TimeBasis {
    if (this.clock === undefined) return { nowArg: String(Math.floor(nowMs)), scale: 1, clockNow: nowMs };
    return { ...timeBasis(this.clock), clockNow: nowMs };
  }

  private key(channelId: string): string {
    return paceKey(this.prefix, channelId);
  }

  /** A booking when the caller may send now, else the time to look again. */
  async acquire(channelId: string, nowMs: number, intervalMs: number): Promise<PaceBooking | number> {
    if (intervalMs <= 0) return { channelId, bookedUntil: '', intervalMs };
    const basis = this.basis(nowMs);
    const ttl = Math.ceil(toScriptMs(basis, SEND_HOLD_MS + intervalMs) + 60_000);
    const [at, inFlight, bookedUntil, scriptNow] = (await this.redis.eval(
      ACQUIRE,
      1,
      this.key(channelId),
      basis.nowArg,
      toScriptMs(basis, SEND_HOLD_MS + intervalMs),
      ttl,
    )) as [string, number, string, string];
    if (bookedUntil !== '') return { channelId, bookedUntil, intervalMs };
    const atClock = toClockTime(basis, Number(at), Number(scriptNow));
    // A send in flight is booked far ahead, but its release will bring the slot to its end +
    // interval: look again within an interval rather than at the booking's end. A hold (after a
    // send, or a Retry-After) is the real time to come back.
    return inFlight === 1 ? Math.min(atClock, nowMs + intervalMs) : atClock;
  }

  /**
   * The send of `booking` ended at `endMs`: the next message may go an interval later. With
   * `sent` false nothing went out, and the slot is free at once.
   */
  async release(booking: PaceBooking, endMs: number, sent = true): Promise<void> {
    if (booking.intervalMs <= 0) return;
    const basis = this.basis(endMs);
    await this.redis.eval(
      RELEASE,
      1,
      this.key(booking.channelId),
      booking.bookedUntil,
      basis.nowArg,
      sent ? toScriptMs(basis, booking.intervalMs) : 0,
      Math.ceil(toScriptMs(basis, booking.intervalMs) + 60_000),
    );
  }

  async holdUntil(channelId: string, untilMs: number, nowMs: number): Promise<void> {
    const basis = this.basis(nowMs);
    const forMs = toScriptMs(basis, untilMs - nowMs);
    if (forMs <= 0) return;
    await this.redis.eval(HOLD, 1, this.key(channelId), basis.nowArg, forMs, Math.ceil(forMs + 60_000));
  }
}
