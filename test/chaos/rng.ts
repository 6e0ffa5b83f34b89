import { seededRandom } from '../../src/sim/prng.ts';

/**
 * A seeded generator (src/sim/prng.ts's seededRandom): one CHAOS_SEED gives the same schedule of
 * kills, faults and outages, so a failing run can be replayed. Timing still varies with the load.
 */
export class ChaosRng {
  /** Uniform in [0, 1). */
  readonly next: () => number;

  constructor(private readonly seed: number) {
    this.next = seededRandom(seed);
  }

  /**
   * An independent generator for one concern (kills, faults, …): concurrent tasks drawing from one
   * shared generator would interleave their draws differently on every run.
   */
  fork(label: string): ChaosRng {
    let hash = 2_166_136_261 ^ this.seed;
    for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 16_777_619);
    return new ChaosRng(hash >>> 0);
  }

  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** A whole number from `min` to `max`, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }
}

/** The seed of the run: CHAOS_SEED when set to a whole number, else 1. */
export function chaosSeed(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.CHAOS_SEED?.trim();
  if (raw === undefined || raw === '') return 1;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new RangeError(`CHAOS_SEED must be a whole number ≥ 0, got "${raw}"`);
  return seed;
}

/** `CHAOS_SHARDS`: 1 (one Redis, the default) or 3 (three shards on a 3-master Redis Cluster). */
export function chaosShards(env: Readonly<Record<string, string | undefined>>): 1 | 3 {
  const raw = env.CHAOS_SHARDS?.trim();
  if (raw === undefined || raw === '' || raw === '1') return 1;
  if (raw === '3') return 3;
  throw new RangeError(`CHAOS_SHARDS must be 1 or 3, got "${raw}"`);
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
