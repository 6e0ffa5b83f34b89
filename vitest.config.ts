import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.ts';

const EXCLUDE = ['test/chaos/**', 'node_modules/**'];

/**
 * Service files that run in a process of their own. The seven long ones (test/sequencer.ts) start
 * worker processes and wait on them for minutes: a worker shared with them saves about a second
 * each and would carry whatever they leave running into the next file. many-workers failed once
 * in a shared worker under load (a config refused), which its own process has not shown. (The sim
 * CLI test, which did too with six concurrent starts of node, now starts one.)
 */
const ISOLATED = [
  'test/reliability/clock-skew.test.ts',
  'test/poll/multi-worker-budget.test.ts',
  'test/deliver/email-browser.test.ts',
  'test/reliability/redis-full.test.ts',
  'test/tools/demo.test.ts',
  'test/revisions/live-processes.test.ts',
  'test/budget/budget-scenarios.test.ts',
  'test/reliability/many-workers.test.ts',
];

const shared = {
  setupFiles: ['test/setup-file.ts'],
  testTimeout: 20_000,
  hookTimeout: 30_000,
};

export default defineConfig({
  test: {
    // Four files at once on two cores: the long files mostly wait on real time (a window turning,
    // locks expiring, processes starting), so two at a time left the CPU half idle. Measured in
    // one sitting at load ~10: 2 → 325 s, 3 → 249 s, 4 → 222 s for the same 220 files.
    maxWorkers: 4,
    // The long files first (test/sequencer.ts), so the run's tail is short ones.
    sequence: { sequencer: LongestFirst },
    // One private Redis for every project (its url reaches them all through the root's provide).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        test: { ...shared, name: 'isolated', include: ISOLATED, exclude: EXCLUDE },
      },
      /**
       * Every file but those in ISOLATED runs in one project without isolation: a worker imports BullMQ,
       * ioredis, fastify, the engine, the zod schemas and the renderers once, not once per file (83 pure
       * files measured 170 → 64 CPU-s, 16 service files 28 → 15). A file can share its worker because it
       * stops what it started in its own hooks (test/setup-file.ts fails a file that leaves a process
       * behind) and changes no global state. Pure files and service files were two projects until
       * 2026-11-28; one project transforms each module once (vite runs a server per project) and lets a
       * worker that loaded a module for a file of one kind keep it for the other: 57 files of rules,
       * deliver, digest, silence, history and snapshot measured about 29 → 25 CPU-s.
       */
      {
        test: {
          ...shared,
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...ISOLATED],
          isolate: false,
        },
      },
    ],
  },
});
