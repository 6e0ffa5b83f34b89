import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.ts';

const EXCLUDE = ['test/chaos/**', 'node_modules/**'];

/**
 * Test files that start or reach a service (Redis, the simulator, a receiver, a child process,
 * Chromium): what they import or call says so. They share workers too (a worker imports BullMQ,
 * ioredis, fastify and the engine once, not once per file: 16 such files measured 28 → 15 CPU-s),
 * which they can because each stops what it started in its own hooks and test/setup-file.ts fails
 * a file that leaves a process behind. Only the files in ISOLATED get a fresh process each.
 */
const SERVICES =
  /helpers\/redis|helpers\/sim|one-book-sim|redis-cluster|api-client|startSimulator|useSimulator|simForTest|startHttpReceiver|startSmtpReceiver|startPrivateRedis|ioredis|bullmq|runCliProcess|runNode\(|startRun|run-process|spawn|execFile|child_process|chromium|fetch\(/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('test', 'chaos') ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The rest are pure (judgement, rendering, config checks, CLI commands run in process): they run
 * without isolation, many files to one worker, so the modules they share (zod schemas, the rules,
 * the renderers) are loaded once per worker instead of once per file. Measured on the 83 such files
 * of 2026-11-28: 170 → 64 CPU-s.
 */
const UNIT = testFiles('test').filter((file) => !SERVICES.test(readFileSync(file, 'utf8')));

/**
 * Service files that run in a process of their own. The seven long ones (test/sequencer.ts) start
 * worker processes and wait on them for minutes: a worker shared with them saves about a second
 * each and would carry whatever they leave running into the next file. many-workers and the sim
 * CLI test failed once in a shared worker under load (a config refused, concurrent starts of
 * node past 20 s), which their own process has not shown.
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
  'test/sim/cli.test.ts',
];

const shared = {
  setupFiles: ['test/setup-file.ts'],
  testTimeout: 20_000,
  hookTimeout: 30_000,
};

export default defineConfig({
  test: {
    // Two cores: a couple of files at once keeps Redis and the simulators responsive.
    maxWorkers: 2,
    // The long files first (test/sequencer.ts), so the run's tail is short ones.
    sequence: { sequencer: LongestFirst },
    // One private Redis for every project (its url reaches them all through the root's provide).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        test: { ...shared, name: 'isolated', include: ISOLATED, exclude: EXCLUDE },
      },
      {
        test: {
          ...shared,
          name: 'services',
          include: ['test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...UNIT, ...ISOLATED],
          isolate: false,
        },
      },
      {
        test: { ...shared, name: 'unit', include: UNIT, exclude: EXCLUDE, isolate: false },
      },
    ],
  },
});
