/**
 * What the browser test puts behind the console: a seeded book (two weeks of BSR, comps, keywords)
 * in workspace `main`, and a workspace `live` on the simulator whose keyword drops are scripted
 * there and polled by the real poll worker.
 */
import type { Runtime } from '../../src/app/runtime.ts';
import type { Observation } from '../../src/model/observation.ts';
import { keywordsTargetId } from '../../src/poll/targets.ts';
import type { RunningSimulator, SimControlClient } from '../../src/sim/index.ts';
import { startSimFixture } from '../helpers/sim.ts';
import { ASIN, HOSTILE } from './harness.ts';

const HOUR = 3_600_000;
const LIVE_KEY = 'sk_console_browser_live_0123456789';
const LIVE_PLAN = 'custom:100000:10000000';

/** Polls `read` until `done` holds; fails naming `what` at the deadline. */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function commitObservation(
  runtime: Runtime,
  kind: 'book' | 'keywords',
  observation: Observation,
  now: number,
) {
  const id = `${kind}/${ASIN}/US`;
  return runtime.store.commit(
    { workspace: 'main', kind, id },
    { observation, ruleState: undefined, committedAt: now },
    0,
  );
}

export async function seedBook(runtime: Runtime, now: number): Promise<void> {
  // Two weeks of hourly BSR around #1,200, then a fall to #9,800 over the last six hours.
  const bsrHistory = Array.from({ length: 14 * 24 }, (_, i) => {
    const at = now - (14 * 24 - i) * HOUR;
    const late = i >= 14 * 24 - 6;
    return { at, rank: late ? 9_800 - (14 * 24 - i) * 150 : 1_200 + Math.round(200 * Math.sin(i / 9)) };
  });
  await commitObservation(
    runtime,
    'book',
    {
      kind: 'book',
      observedAt: now,
      asin: ASIN,
      marketplace: 'US',
      title: 'The Quiet Orbit <b>bold?</b>',
      author: 'Ada Quill',
      bsr: 9_800,
      bsrCategory: 'Kindle Store > Space Opera',
      bsrHistory,
      reviewCount: 214,
      averageRating: 4.4,
      compTitles: [
        { asin: 'B0COMP0001', title: 'Starward Drift', bsr: 2_300 },
        { asin: 'B0COMP0002', title: 'Hollow Suns <i>vol. 2</i>', bsr: 10_400 },
        { asin: 'B0COMP0003', title: 'The Long Burn', bsr: 41_000 },
      ],
    },
    now,
  );
  await commitObservation(
    runtime,
    'keywords',
    {
      kind: 'keywords',
      observedAt: now,
      asin: ASIN,
      marketplace: 'US',
      ranks: [
        { keyword: 'space opera', rank: 41 },
        { keyword: HOSTILE[1] ?? '', rank: 7 },
      ],
    },
    now,
  );
}

export interface LiveSim {
  sim: RunningSimulator;
  control: SimControlClient;
  asin: string;
  keyword: string;
  /** The raw `live` workspace for the config. */
  workspace: Record<string, unknown>;
  /** Scripts the keyword's rank in the simulator (from the current sim hour on). */
  setRank(rank: number | null): Promise<unknown>;
  /** One poll of the keywords target by the real poll worker; resolves once its snapshot is stored. */
  poll(runtime: Runtime): Promise<void>;
  close(): Promise<void>;
}

export async function startLiveSim(): Promise<LiveSim> {
  const { sim, control, world, close } = await startSimFixture({
    seed: 17,
    books: 2,
    key: LIVE_KEY,
    workspace: 'live',
    plan: LIVE_PLAN,
  });
  const book = world.books.find((b) => b.marketplaces.includes('US'));
  const keyword = book?.keywords[0];
  if (book === undefined || keyword === undefined)
    throw new Error('the simulator has no US book with keywords');
  const targetId = keywordsTargetId(book.asin, 'US');
  let polls = 0;
  return {
    sim,
    control,
    asin: book.asin,
    keyword,
    workspace: {
      id: 'live',
      baseUrl: sim.url,
      apiKey: LIVE_KEY,
      plan: LIVE_PLAN,
      keywordSource: 'snapshot',
      sales: false,
      books: [{ asin: book.asin, marketplaces: ['US'], keywords: [keyword] }],
    },
    setRank: (rank) => control.event({ type: 'keyword_rank', asin: book.asin, keyword, rank }),
    poll: async (runtime) => {
      polls += 1;
      const ref = { workspace: 'live', kind: 'keywords' as const, id: targetId };
      const before = (await runtime.store.get(ref))?.pollSeq ?? 0;
      await runtime.pollQueue.add(
        'poll',
        { workspace: 'live', targetId },
        { jobId: `browser-poll-${polls}` },
      );
      await until(
        async () => (await runtime.store.get(ref))?.pollSeq ?? 0,
        (seq) => seq > before,
        `poll ${polls} of ${targetId} stored`,
      );
    },
    close,
  };
}
