import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-file.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Two cores: a couple of files at once keeps Redis and the simulators responsive.
    maxWorkers: 2,
  },
});
