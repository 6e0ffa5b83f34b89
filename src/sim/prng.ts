/**
 * Hash-based randomness: every random value of the simulated world is a pure function of the
 * seed and a few coordinates (book, marketplace, hour, ...). Nothing is stepped through time, so
 * the value at any hour costs the same whether the simulator has run a minute or a month.
 */

type Part = string | number;

function mixWord(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  let out = h ^ k;
  out = (out << 13) | (out >>> 19);
  return (Math.imul(out, 5) + 0xe6546b64) | 0;
}

function finalize(h: number): number {
  let out = h ^ (h >>> 16);
  out = Math.imul(out, 0x85ebca6b);
  out ^= out >>> 13;
  out = Math.imul(out, 0xc2b2ae35);
  out ^= out >>> 16;
  return out >>> 0;
}

/** A 32-bit hash of the seed and the parts; parts are length-tagged so ('ab','c') ≠ ('a','bc'). */
export function hash32(seed: number, parts: readonly Part[]): number {
  let h = mixWord(0x9e3779b9, seed | 0);
  for (const part of parts) {
    if (typeof part === 'number') {
      // Hour indexes and millisecond instants exceed 32 bits: mix both halves.
      h = mixWord(h, part >>> 0);
      h = mixWord(h, Math.floor(part / 4294967296) | 0);
    } else {
      for (let i = 0; i < part.length; i++) h = mixWord(h, part.charCodeAt(i));
      h = mixWord(h, part.length ^ 0x737472);
    }
  }
  return finalize(h);
}

/** Seeded source of coordinate-addressed random values. */
export class Rng {
  constructor(readonly seed: number) {}

  /**
   * A 32-bit key of the parts, to pass as one number in hot paths: hashing a number is much
   * cheaper than hashing an ASIN or keyword again for every hour of a series.
   */
  key(...parts: Part[]): number {
    return hash32(this.seed, parts);
  }

  /** Uniform in [0, 1). */
  unit(...parts: Part[]): number {
    return hash32(this.seed, parts) / 4294967296;
  }

  /** Uniform in [-1, 1). */
  signed(...parts: Part[]): number {
    return this.unit(...parts) * 2 - 1;
  }

  /** Uniform in [lo, hi). */
  between(lo: number, hi: number, ...parts: Part[]): number {
    return lo + (hi - lo) * this.unit(...parts);
  }

  /** Whole number in [lo, hi] inclusive. */
  int(lo: number, hi: number, ...parts: Part[]): number {
    return lo + Math.floor(this.unit(...parts) * (hi - lo + 1));
  }

  chance(p: number, ...parts: Part[]): boolean {
    return this.unit(...parts) < p;
  }

  pick<T>(items: readonly T[], ...parts: Part[]): T {
    const item = items[Math.floor(this.unit(...parts) * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** Standard normal (Box-Muller over two independent hashes). */
  normal(...parts: Part[]): number {
    const u = Math.max(this.unit(...parts, 'n1'), 1e-12);
    const v = this.unit(...parts, 'n2');
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Hex digits derived from the parts: for ids that must be stable across runs. */
  hex(length: number, ...parts: Part[]): string {
    let out = '';
    for (let i = 0; out.length < length; i++)
      out += hash32(this.seed, [...parts, i])
        .toString(16)
        .padStart(8, '0');
    return out.slice(0, length);
  }

  /**
   * Smooth noise in [-1, 1]: random values on a grid of `period` and a smoothstep between them.
   * Summing a few periods with amplitudes growing like sqrt(period) looks like a random walk
   * (the BSR model) while staying addressable at any instant.
   */
  valueNoise(period: number, t: number, ...parts: Part[]): number {
    const x = t / period;
    const k = Math.floor(x);
    const f = x - k;
    const a = this.signed(...parts, period, k);
    const b = this.signed(...parts, period, k + 1);
    return a + (b - a) * f * f * (3 - 2 * f);
  }
}

/**
 * A stepped seeded generator (mulberry32), uniform in [0, 1): for tests, fixtures and benchmarks
 * that draw a sequence, where the world above addresses values by coordinates instead. The same
 * seed gives the same sequence, so a failing random run can be replayed from its seed.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
