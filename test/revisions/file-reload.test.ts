/**
 * `run --config FILE` keeps the file the truth: a revision stored by other means (here `config
 * apply` of another file) is replaced by the file again on SIGHUP, although its text did not change
 * (the file watch alone would not notice); and `config apply` refuses a file whose plan does not fit
 * the month's budget, with the figures, unless `--allow-overbudget` is given.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { openRevisionStore } from '../../src/revisions/index.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, runCli, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { startRun } from '../helpers/run-process.ts';
import { useSimulator } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';

const KEY = 'sk_file_reload_0123456789abcdef';
const env = { SHELFWATCH_CONFIG_KEY: randomBytes(32).toString('base64') };
const fx = useSimulator({ seed: 7, books: 2, key: KEY, workspace: 'ws', plan: 'custom:600:100000' });
const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop().catch(() => {});
});

function document(prefix: string, books: number, extra: Record<string, unknown> = {}) {
  return {
    redis: { url: redisUrl(), prefix },
    server: { port: 0 },
    workspaces: [
      {
        id: 'ws',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:600:100000',
        sales: false,
        books: fx.world.books.slice(0, books).map((b) => ({ asin: b.asin, marketplaces: ['US'] })),
        ...extra,
      },
    ],
  };
}

it('stores the unchanged file again on SIGHUP, over a revision applied from elsewhere', {
  timeout: CLI_TEST_TIMEOUT_MS,
}, async () => {
  const prefix = testPrefix('file-reload-hup');
  const redis = testRedis(prefix);
  const store = openRevisionStore({ redis, prefix, env });
  const dir = tempDir();
  const file = writeConfig(dir, 'shelfwatch.json', document(prefix, 1));
  const run = startRun(file, { env });
  stops.push(() => run.kill());
  await run.waitForLine('running', (l) => l.msg.startsWith('shelfwatch running'), 60_000);
  expect(await store.currentRev()).toBe(1);

  const other = writeConfig(dir, 'other.json', document(prefix, 2));
  const applied = await runCli(['config', 'apply', other, '--by', 'someone'], { env });
  expect(applied.code, applied.stderr).toBe(0);
  expect(await store.currentRev()).toBe(2);
  await run.waitForLine(
    'revision 2 applied',
    (l) => l.msg === 'config revision applied' && l.revision === 2,
    10_000,
  );

  run.child.kill('SIGHUP');
  await run.waitForLine('SIGHUP noticed', (l) => l.msg.startsWith('SIGHUP'), 5_000);
  await waitFor('the file stored again', async () => (await store.currentRev()) === 3, 5_000);
  const current = await store.current();
  expect(current?.meta).toMatchObject({ rev: 3, via: 'file', from: file });
  expect(current?.config.workspaces[0]?.books.map((b) => b.asin)).toEqual([fx.world.books[0]?.asin]);
  await run.waitForLine(
    'revision 3 applied',
    (l) => l.msg === 'config revision applied' && l.revision === 3,
    10_000,
  );
  expect(await run.stop()).toBe(0);
});

it('refuses a file over the month budget with the figures, and stores it with --allow-overbudget', {
  timeout: CLI_TEST_TIMEOUT_MS,
}, async () => {
  const prefix = testPrefix('file-reload-budget');
  const redis = testRedis(prefix);
  const store = openRevisionStore({ redis, prefix, env });
  const dir = tempDir();
  const fits = writeConfig(dir, 'fits.json', document(prefix, 1));
  expect((await runCli(['config', 'apply', fits], { env })).code).toBe(0);
  // Two books and their keywords every minute on a plan of 1,000 requests a month: far over.
  const over = writeConfig(
    dir,
    'over.json',
    document(prefix, 2, { plan: 'custom:60:1000', cadence: { book: '1m', keywords: '1m' } }),
  );
  const refused = await runCli(['config', 'apply', over], { env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('nothing stored, its plan does not fit the budget');
  expect(refused.stderr).toMatch(
    /ws: the plan does NOT fit the month: [0-9,]+ requests needed, 900 plannable/,
  );
  expect(await store.currentRev()).toBe(1);
  const dry = await runCli(['config', 'apply', over, '--dry-run'], { env });
  expect(dry.code).toBe(1);
  const allowed = await runCli(['config', 'apply', over, '--allow-overbudget'], { env });
  expect(allowed.code, allowed.stderr).toBe(0);
  expect(allowed.stdout).toContain('stored revision 2');
  expect((await store.current())?.config.workspaces[0]?.plan.perMonth).toBe(1_000);
});
