/** `shelfwatch run` says what it does: its plan, "baselines stored", in colour when FORCE_COLOR asks. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';

const KEY = 'sk_run_report_0123456789';
const prefix = testPrefix('run-report');
testRedis(prefix);
let config = '';

const fx = useSimulator({
  seed: 5,
  books: 1,
  key: KEY,
  workspace: 'ws',
  plan: 'custom:600:100000',
});

beforeAll(async () => {
  const book = fx.world.books[0];
  config = writeConfig(tempDir(), 'run.yaml', {
    redis: { url: redisUrl(), prefix },
    server: { port: 0 },
    workspaces: [
      {
        id: 'acme',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:600:100000',
        sales: false,
        // Short cadences: first polls are spread over up to one cadence (at most 5 minutes).
        cadence: { book: '5s', keywords: '5s' },
        books: [{ asin: book?.asin, marketplaces: ['US'], keywords: { top: 5 } }],
      },
    ],
  });
});

afterAll(async () => {});

it('reports its plan and "baselines stored", coloured with FORCE_COLOR', {
  timeout: CLI_TEST_TIMEOUT_MS,
}, async () => {
  const child = spawn(process.execPath, ['bin/shelfwatch.mjs', 'run', '--config', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', FORCE_COLOR: '1' },
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  }
  try {
    await waitFor(
      'baselines',
      async () => output.includes('baselines stored') || child.exitCode !== null,
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)} in:\n${output}`);
    });
    expect(output).toContain('baselines stored');
    expect(output).toMatch(/workspace acme: 2 targets, book every 5s, keywords every 5s/);
    expect(output).toContain('\u001b[');
    expect(output).not.toContain(KEY);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
