import { defineConfig } from 'vitest/config';
import { CHAOS_TEST_TIMEOUT_MS } from './test/chaos/deadlines.ts';

/**
 * `npm run test:chaos`: the chaos run (test/chaos/), apart from `npm test` because it takes minutes
 * and starts its own Redis, simulator, Slack receivers, SMTP server and worker processes.
 */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    // The run's deadlines add up to it (test/chaos/deadlines.ts): baselines, events, settling, stop.
    testTimeout: CHAOS_TEST_TIMEOUT_MS,
    hookTimeout: 60_000,
    // One file at a time: the run measures timing on two cores and must not share them.
    fileParallelism: false,
  },
});
