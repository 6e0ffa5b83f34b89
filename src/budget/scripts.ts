import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { SCRIPT_NOW_LUA } from './time-basis.ts';

/**
 * A Lua script run by SHA, loaded on first use (and again after a SCRIPT FLUSH or a fail-over to
 * a node that has never seen it). ioredis' `defineCommand` does the same but adds untyped methods.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(
    redis: Redis | Cluster,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/**
 * Check and consume in one step, so any number of processes share one budget without a lock.
 * Order: pause, then month, then minute, so a refusal names the constraint that lasts longest.
 * Time is `scriptNow` (Redis TIME for real-time clocks, see time-basis.ts), taken when the script
 * runs: a call that waited in a client's offline queue during an outage stamps its grant with the
 * time it was granted, not the time it was asked for.
 *
 * KEYS: 1 window zset, 2 month counter, 3 pause hash.
 * ARGV: 1 now ('redis' or ms), 2 window (script ms), 3 per-minute limit, 4 month ceiling, 5 count,
 *       6 window key TTL, 7 month key TTL, 8 member nonce, 9 time to the month's reset (script ms).
 * Reply: {1, minuteUsed, monthUsed} or {0, reason, retryAt, pauseReason, now}; retryAt -1
 * means "paused until resumed".
 */
export const acquireScript = new LuaScript(`${SCRIPT_NOW_LUA}
local now = scriptNow(ARGV[1])
local windowMs = tonumber(ARGV[2])
local perMinute = tonumber(ARGV[3])
local ceiling = tonumber(ARGV[4])
local count = tonumber(ARGV[5])

local pause = redis.call('HMGET', KEYS[3], 'until', 'reason')
if pause[1] then
  if pause[1] == 'inf' then
    return {0, 'paused', -1, pause[2] or '', timeReply(now)}
  end
  local untilMs = tonumber(pause[1])
  if untilMs > now then
    return {0, 'paused', pause[1], pause[2] or '', timeReply(now)}
  end
end

local monthUsed = tonumber(redis.call('GET', KEYS[2]) or '0')
if monthUsed + count > ceiling then
  return {0, 'month', timeReply(now + tonumber(ARGV[9])), '', timeReply(now)}
end

-- A grant at t occupies [t, t + window): drop what has left, count the rest.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local inWindow = redis.call('ZCARD', KEYS[1])
local excess = inWindow + count - perMinute
if excess > 0 then
  -- The request fits once the excess oldest grants have left: exactly when the last of them does.
  local oldest = redis.call('ZRANGE', KEYS[1], excess - 1, excess - 1, 'WITHSCORES')
  return {0, 'minute', timeReply(tonumber(oldest[2]) + windowMs), '', timeReply(now)}
end

for i = 1, count do
  redis.call('ZADD', KEYS[1], now, ARGV[8] .. ':' .. i)
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
monthUsed = redis.call('INCRBY', KEYS[2], count)
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return {1, inWindow + count, monthUsed}
`);

/**
 * Gives back the unused tail of a reservation (`acquireScript` with count > 1): its members leave
 * the window and the month counter drops by as many, since those requests never went out.
 *
 * KEYS: 1 window zset, 2 month counter of the grant. ARGV: 1 member nonce, 2 first unused index,
 * 3 last index. Reply: how many the month counter gave back.
 */
export const refundScript = new LuaScript(`
local first = tonumber(ARGV[2])
local last = tonumber(ARGV[3])
for i = first, last do
  redis.call('ZREM', KEYS[1], ARGV[1] .. ':' .. i)
end
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local back = math.min(used, last - first + 1)
if back > 0 then redis.call('DECRBY', KEYS[2], back) end
return back
`);

/**
 * Moves one reserved grant's stamp to now, when the walk really sends it: a reservation is taken at
 * the walk's start, and a page sent seconds later must occupy the window for a full window from
 * when it went out, as the API counts it. Only ever later, so never more room.
 *
 * KEYS: 1 window zset. ARGV: 1 now, 2 member. Reply: 1, or 0 when the member has left the window
 * (the walk took longer than a window to reach it).
 */
export const restampScript = new LuaScript(`${SCRIPT_NOW_LUA}
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', scriptNow(ARGV[1]), ARGV[2])
return 1
`);

/**
 * Moves a request's stamp to now when its answer came, and puts it back when it has left the window
 * meanwhile: the API counted the request somewhere between its send and its answer, so the window
 * must hold it from then on even if a stall (a process starved of CPU before the send) kept it
 * out longer than the window. Putting it back can only leave less room, never more.
 *
 * KEYS: 1 window zset. ARGV: 1 now, 2 member, 3 window key TTL. Reply: 1, or 2 when it was put back.
 */
export const answeredScript = new LuaScript(`${SCRIPT_NOW_LUA}
local had = redis.call('ZSCORE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[1], scriptNow(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if had then return 1 end
return 2
`);

/**
 * Makes the window hold at least what the API says it has counted in its minute (X-RateLimit-Limit
 * minus X-RateLimit-Remaining): the window can be short after a Redis crash lost its last writes,
 * or when another client uses the same key. The missing grants leave the window when the API's
 * minute ends (X-RateLimit-Reset), not a full window from now: stamped at now, they held room for
 * up to a minute after the API had counted them off (a refill after FLUSHALL idled 26 s with room
 * left). Without a reset they are stamped at now, the conservative choice.
 *
 * KEYS: 1 window zset. ARGV: 1 now, 2 window (script ms), 3 used according to the API, 4 member
 * nonce, 5 window key TTL, 6 script ms until the API's minute ends (0..window; the window when
 * unknown). Reply: the grants added.
 */
export const syncMinuteScript = new LuaScript(`${SCRIPT_NOW_LUA}
local now = scriptNow(ARGV[1])
local windowMs = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local missing = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
if missing <= 0 then return 0 end
local stamp = now - windowMs + tonumber(ARGV[6])
for i = 1, missing do
  redis.call('ZADD', KEYS[1], stamp, ARGV[4] .. ':api' .. i)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return missing
`);

/**
 * Sets a pause unless one at least as long is in force: a short Retry-After arriving after a
 * long quota pause must not let polls out early.
 *
 * KEYS: 1 pause hash. ARGV: 1 how long from now (script ms) or 'inf', 2 reason, 3 now, 4 TTL ms
 * (finite pauses). Reply: 1 when the pause was set or lengthened, 0 when an existing pause already
 * covers it.
 */
export const pauseScript = new LuaScript(`${SCRIPT_NOW_LUA}
local now = scriptNow(ARGV[3])
local untilMs = 'inf'
if ARGV[1] ~= 'inf' then
  if tonumber(ARGV[1]) <= 0 then
    return 0
  end
  untilMs = now + tonumber(ARGV[1])
end
local current = redis.call('HGET', KEYS[1], 'until')
if current then
  if current == 'inf' then
    return 0
  end
  if untilMs ~= 'inf' and tonumber(current) >= untilMs then
    return 0
  end
end
redis.call('HSET', KEYS[1], 'until', untilMs, 'reason', ARGV[2])
if untilMs == 'inf' then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return 1
`);

/**
 * Raises the month counter to what the API says was used (other clients of the same key, or
 * requests whose answers were lost), never lowers it: our own count is the conservative one.
 *
 * KEYS: 1 month counter. ARGV: 1 used according to the API, 2 TTL ms. Reply: the counter.
 */
export const syncMonthScript = new LuaScript(`
local ours = tonumber(redis.call('GET', KEYS[1]) or '0')
local theirs = tonumber(ARGV[1])
if theirs > ours then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return theirs
end
return ours
`);
