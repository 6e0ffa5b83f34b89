/** A simulator with one book and a workspace config watching it in one marketplace (tests of `run`). */
import { parsePlan, type RunningSimulator, startSimulator } from '../../src/sim/index.ts';
import { SimControl } from '../api/helpers.ts';

const PLAN = 'custom:600:1000000';

export interface OneBookSim {
  sim: RunningSimulator;
  /** The raw workspace `ws` (as parsed from YAML) watching the book; `extra` adds or replaces keys. */
  workspace(extra?: Record<string, unknown>): Record<string, unknown>;
  /** The book's target id, e.g. `book/B0…/US`. */
  bookTarget: string;
}

export async function startOneBookSim(key: string, seed: number): Promise<OneBookSim> {
  const sim = await startSimulator({
    port: 0,
    seed,
    books: 1,
    keys: [{ key, workspace: 'ws', plan: parsePlan(PLAN) }],
  });
  const control = new SimControl(sim);
  const book = (await control.world()).books[0];
  await control.close();
  if (book === undefined) throw new Error('the simulator has no book');
  const marketplace = book.marketplaces[0] ?? 'US';
  return {
    sim,
    bookTarget: `book/${book.asin}/${marketplace}`,
    workspace: (extra = {}) => ({
      id: 'ws',
      baseUrl: sim.url,
      apiKey: key,
      plan: PLAN,
      books: [{ asin: book.asin, marketplaces: [marketplace] }],
      ...extra,
    }),
  };
}
