/** ChannelPacer against a real Redis: bookings for a send in flight, releases and Retry-After holds. */
import { describe, expect, it } from 'vitest';
import { ChannelPacer, type PaceBooking, SEND_HOLD_MS } from '../../src/deliver/pacing.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('pacing');
const pacer = new ChannelPacer(testRedis(prefix), prefix);
const INTERVAL = 1_100;
const T = 1_800_000_000_000;

function booked(result: PaceBooking | number): PaceBooking {
  if (typeof result === 'number') throw new Error(`expected a booking, got "come back at ${result}"`);
  return result;
}

describe('ChannelPacer', () => {
  it('keeps the slot while a send is in flight, and a waiting flush looks again within an interval', async () => {
    const booking = booked(await pacer.acquire('a', T, INTERVAL));
    // Well past the interval, the send has not ended: still taken, look again soon (not in 31 s).
    expect(await pacer.acquire('a', T + 5_000, INTERVAL)).toBe(T + 5_000 + INTERVAL);
    await pacer.release(booking, T + 6_000);
    expect(await pacer.acquire('a', T + 6_000 + INTERVAL - 1, INTERVAL)).toBe(T + 6_000 + INTERVAL);
    booked(await pacer.acquire('a', T + 6_000 + INTERVAL, INTERVAL));
  });

  it('frees the slot at once when nothing was sent', async () => {
    const booking = booked(await pacer.acquire('b', T, INTERVAL));
    await pacer.release(booking, T + 10, false);
    booked(await pacer.acquire('b', T + 20, INTERVAL));
  });

  it('a Retry-After hold is waited out whole: no look every interval while it lasts', async () => {
    const booking = booked(await pacer.acquire('c', T, INTERVAL));
    await pacer.release(booking, T + 500);
    await pacer.holdUntil('c', T + 60_000, T + 500);
    expect(await pacer.acquire('c', T + 2_000, INTERVAL)).toBe(T + 60_000);
    booked(await pacer.acquire('c', T + 60_000, INTERVAL));
  });

  it('a release never pulls in a hold or another booking', async () => {
    const first = booked(await pacer.acquire('d', T, INTERVAL));
    await pacer.holdUntil('d', T + SEND_HOLD_MS + 10 * INTERVAL, T);
    await pacer.release(first, T + 100);
    expect(await pacer.acquire('d', T + 200, INTERVAL)).toBe(T + SEND_HOLD_MS + 10 * INTERVAL);

    // A booking that expired (its process died mid-send) is taken over; the late release of the
    // dead one leaves the new booking alone.
    const stale = booked(await pacer.acquire('e', T, INTERVAL));
    const fresh = booked(await pacer.acquire('e', T + SEND_HOLD_MS + INTERVAL, INTERVAL));
    await pacer.release(stale, T + SEND_HOLD_MS + INTERVAL + 1);
    expect(await pacer.acquire('e', T + SEND_HOLD_MS + INTERVAL + 2, INTERVAL)).toBe(
      T + SEND_HOLD_MS + INTERVAL + 2 + INTERVAL,
    );
    await pacer.release(fresh, T + SEND_HOLD_MS + INTERVAL + 3);
    booked(await pacer.acquire('e', T + SEND_HOLD_MS + 2 * INTERVAL + 3, INTERVAL));
  });

  it('a hold during another send in flight wins if it reaches further', async () => {
    booked(await pacer.acquire('f', T, INTERVAL));
    await pacer.holdUntil('f', T + 5 * 60_000, T);
    expect(await pacer.acquire('f', T + 1_000, INTERVAL)).toBe(T + 5 * 60_000);
  });

  it('a channel without an interval is never paced', async () => {
    booked(await pacer.acquire('g', T, 0));
    booked(await pacer.acquire('g', T, 0));
  });
});
