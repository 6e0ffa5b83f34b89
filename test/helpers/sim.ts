/**
 * The simulator fixture: a simulator on a free port with one workspace key, its typed control
 * client and the world it serves, closed with the file (or the test). Tests say what matters to
 * them (seed, books, plan) and read the rest from here instead of starting a simulator by hand.
 */
import { afterAll, afterEach, beforeAll, onTestFinished } from 'vitest';
import type { SimWorld, SimWorldBook } from '../../src/sim/control-schemas.ts';
import {
  parsePlan,
  type RunningSimulator,
  SimControlClient,
  type SimKeySpec,
  type SimulatorOptions,
  startSimulator,
} from '../../src/sim/index.ts';

export type { SimWorld, SimWorldBook };

export interface SimFixtureOptions extends Omit<SimulatorOptions, 'keys' | 'seed'> {
  seed: number;
  /** The workspace key the test polls with. */
  key: string;
  /** Default 'ws'. */
  workspace?: string;
  /** The key's plan, as a config would spell it; default roomy enough never to be the subject. */
  plan?: string;
  /** Keys of other workspaces beside the main one. */
  otherKeys?: SimKeySpec[];
  /** useSimulator only: clears scripted faults after each test, so none leaks into the next. */
  clearFaultsAfterEach?: boolean;
}

export interface SimFixture {
  readonly sim: RunningSimulator;
  readonly url: string;
  readonly control: SimControlClient;
  /** The world as it was when the simulator started. */
  readonly world: SimWorld;
  readonly key: string;
  readonly workspace: string;
  readonly plan: string;
  /** The world's `index`th ARC campaign; an error when it has none (a test must not poll nothing). */
  campaign(index?: number): { campaign_id: string; asin: string };
  /** The world's `index`th book; an error when it has none. */
  book(index?: number): SimWorldBook;
  close(): Promise<void>;
}

const ROOMY_PLAN = 'custom:100000:10000000';

function nth<T>(items: readonly T[], index: number, what: string): T {
  const item = items[index];
  if (item === undefined) throw new Error(`the simulator world has no ${what} #${index}`);
  return item;
}

/** Starts a simulator and reads its world; the caller closes it (see useSimulator, simForTest). */
export async function startSimFixture(options: SimFixtureOptions): Promise<SimFixture> {
  const {
    key,
    workspace = 'ws',
    plan = ROOMY_PLAN,
    otherKeys = [],
    clearFaultsAfterEach: _clearFaults,
    ...simOptions
  } = options;
  const sim = await startSimulator({
    port: 0,
    ...simOptions,
    keys: [{ key, workspace, plan: parsePlan(plan) }, ...otherKeys],
  });
  const control = new SimControlClient(sim);
  let world: SimWorld;
  try {
    world = await control.world();
  } catch (error) {
    await control.close();
    await sim.close();
    throw error;
  }
  return {
    sim,
    url: sim.url,
    control,
    world,
    key,
    workspace,
    plan,
    campaign: (index = 0) => nth(world.campaigns, index, 'campaign'),
    book: (index = 0) => nth(world.books, index, 'book'),
    async close() {
      await control.close();
      await sim.close();
    },
  };
}

/**
 * For the file (or describe) level: starts the simulator before the first test and closes it after
 * the last. Hooks registered after this call see it running.
 */
export function useSimulator(options: SimFixtureOptions): SimFixture {
  let current: SimFixture | undefined;
  const started = (): SimFixture => {
    if (current === undefined) throw new Error('the simulator fixture is used before its beforeAll ran');
    return current;
  };
  beforeAll(async () => {
    current = await startSimFixture(options);
  });
  afterEach(async () => {
    if (options.clearFaultsAfterEach === true) await current?.control.clearFaults();
  });
  afterAll(async () => {
    await current?.close();
  });
  const handle = {
    campaign: (index?: number) => started().campaign(index),
    book: (index?: number) => started().book(index),
    close: () => started().close(),
  };
  // The values exist once beforeAll ran: each is read from the running fixture when used.
  for (const name of ['sim', 'url', 'control', 'world', 'key', 'workspace', 'plan'] as const) {
    Object.defineProperty(handle, name, { get: () => started()[name], enumerable: true });
  }
  return handle as SimFixture;
}

/** Inside a test: the simulator is closed when that test finishes, passed or failed. */
export async function simForTest(options: SimFixtureOptions): Promise<SimFixture> {
  const fixture = await startSimFixture(options);
  onTestFinished(() => fixture.close());
  return fixture;
}
