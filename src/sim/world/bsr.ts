import type { Rng } from '../prng.ts';
import { HOUR } from '../time.ts';
import type { Book } from './catalogue.ts';
import type { EventStore } from './events.ts';
import type { Marketplace } from './market.ts';

/**
 * Best-seller rank as a log-scale random walk: smooth noise at four periods whose amplitudes grow
 * like sqrt(period) (a walk's signature), an hourly jitter, and sales spikes that lift the rank
 * sharply and decay over a day or two. Each term is addressable by hour, so any point costs a few
 * dozen hashes, never a walk through the past.
 */
const OCTAVES: readonly (readonly [periodHours: number, amplitude: number])[] = [
  [6, 0.03],
  [24, 0.07],
  [96, 0.13],
  [384, 0.22],
];
const SPIKES_PER_DAY = 0.14;
/** A spike's lift after six days is under 5% of its size: older days are not looked at. */
const SPIKE_LOOKBACK_DAYS = 6;
const NULL_WINDOWS_PER_DAY = 0.006;
export const MAX_RANK = 9_000_000;

/** Labels of the random draws, as numbers: cheaper to hash than strings. */
const SPIKE = 1;
const SPIKE_HOUR = 2;
const SPIKE_SIZE = 3;
const SPIKE_DECAY = 4;
const NULL_WINDOW = 5;
const NULL_START = 6;
const NULL_LENGTH = 7;
const NOISE = 8;
const JITTER = 9;
const MARKET = 10;

function spikeLift(rng: Rng, key: number, hour: number): number {
  const today = Math.floor(hour / 24);
  let lift = 0;
  for (let day = today - SPIKE_LOOKBACK_DAYS; day <= today; day++) {
    if (!rng.chance(SPIKES_PER_DAY, key, SPIKE, day)) continue;
    const start = day * 24 + rng.int(0, 23, key, SPIKE_HOUR, day);
    if (hour < start) continue;
    const size = rng.between(0.25, 1.1, key, SPIKE_SIZE, day);
    const decayHours = rng.between(12, 48, key, SPIKE_DECAY, day);
    lift += size * Math.exp(-(hour - start) / decayHours);
  }
  return lift;
}

/** Amazon sometimes strips a rank for a few hours: rare, and only for account books. */
function inNullWindow(rng: Rng, key: number, hour: number): boolean {
  const today = Math.floor(hour / 24);
  for (let day = today - 1; day <= today; day++) {
    if (!rng.chance(NULL_WINDOWS_PER_DAY, key, NULL_WINDOW, day)) continue;
    const start = day * 24 + rng.int(0, 23, key, NULL_START, day);
    const length = rng.int(2, 8, key, NULL_LENGTH, day);
    if (hour >= start && hour < start + length) return true;
  }
  return false;
}

/** The generated rank of a book in a marketplace as a function of the hour index (epoch hours). */
export function bsrModel(rng: Rng, book: Book, marketplace: Marketplace): (hour: number) => number | null {
  const key = rng.key('bsr', book.asin, marketplace);
  const base = book.baseLogRank + (marketplace === 'US' ? 0 : rng.between(0.2, 1.1, key, MARKET));
  return (hour) => {
    if (book.inAccount && inNullWindow(rng, key, hour)) return null;
    let log = base;
    for (const [period, amplitude] of OCTAVES) log += amplitude * rng.valueNoise(period, hour, key, NOISE);
    log += 0.015 * rng.signed(key, JITTER, hour);
    log -= spikeLift(rng, key, hour);
    return Math.min(MAX_RANK, Math.max(1, Math.round(10 ** log)));
  };
}

export function generatedBsr(rng: Rng, book: Book, marketplace: Marketplace, hour: number): number | null {
  return bsrModel(rng, book, marketplace)(hour);
}

/** The rank series of a book with scripted events first, by the epoch ms of the hour's start. */
export function bsrSeries(
  rng: Rng,
  events: EventStore,
  book: Book,
  marketplace: Marketplace,
): (hourMs: number) => number | null {
  const model = bsrModel(rng, book, marketplace);
  return (hourMs) => {
    const override = events.bsr(book.asin, marketplace, hourMs);
    return override === undefined ? model(hourMs / HOUR) : override.rank;
  };
}
