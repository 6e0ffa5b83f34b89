import { defineConfig } from 'vitest/config';

/**
 * `npm run test:chaos`: the chaos run (test/chaos/), apart from `npm test` because it takes minutes
 * and starts its own Redis, simulator, Slack receivers, SMTP server and worker processes.
 */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    // The run's own deadlines add up to more than 420 s on a loaded machine: baselines (60 s), events
    // until 200 s after the chaos starts plus 90 s to see the last one, settling (150 s), checks.
    testTimeout: 600_000,
    hookTimeout: 60_000,
    // One file at a time: the run measures timing on two cores and must not share them.
    fileParallelism: false,
  },
});
