/** A simulator with one book and a workspace config watching it in one marketplace (tests of `run`). */
import type { RunningSimulator } from '../../src/sim/index.ts';
import { startSimFixture } from './sim.ts';

const PLAN = 'custom:600:1000000';

export interface OneBookSim {
  sim: RunningSimulator;
  /** The raw workspace `ws` (as parsed from YAML) watching the book; `extra` adds or replaces keys. */
  workspace(extra?: Record<string, unknown>): Record<string, unknown>;
  /** The book's target id, e.g. `book/B0…/US`. */
  bookTarget: string;
}

/** The caller closes `sim` (its control connection is closed here: it only read the world). */
export async function startOneBookSim(key: string, seed: number): Promise<OneBookSim> {
  const fixture = await startSimFixture({ seed, books: 1, key, workspace: 'ws', plan: PLAN });
  await fixture.control.close();
  const book = fixture.book();
  const marketplace = book.marketplaces[0] ?? 'US';
  return {
    sim: fixture.sim,
    bookTarget: `book/${book.asin}/${marketplace}`,
    workspace: (extra = {}) => ({
      id: 'ws',
      baseUrl: fixture.url,
      apiKey: key,
      plan: PLAN,
      books: [{ asin: book.asin, marketplaces: [marketplace] }],
      ...extra,
    }),
  };
}
