import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

const EXCLUDE = ['test/chaos/**', 'node_modules/**'];

/**
 * Test files that start or reach a service (Redis, the simulator, a receiver, a child process,
 * Chromium): what they import or call says so. They run isolated, a fresh process each, so what
 * one leaves behind (sockets, timers, module state) cannot reach the next.
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

const shared = {
  setupFiles: ['test/setup-file.ts'],
  testTimeout: 20_000,
  hookTimeout: 30_000,
};

export default defineConfig({
  test: {
    // Two cores: a couple of files at once keeps Redis and the simulators responsive.
    maxWorkers: 2,
    projects: [
      {
        // Named to sort first: the slow files that wait on services start while the fast ones fill in.
        test: {
          ...shared,
          name: 'services',
          include: ['test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...UNIT],
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        test: { ...shared, name: 'unit', include: UNIT, exclude: EXCLUDE, isolate: false },
      },
    ],
  },
});
