/**
 * What `run --config FILE` logs about its file (cli/live-run.ts): a file equal to the revision in
 * force is no refusal (a debug line only); a file really refused says why and what runs instead,
 * which differs with and without a revision in force.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { syncConfigFile } from '../../src/cli/live-run.ts';
import { openRevisionStore } from '../../src/revisions/index.ts';
import { tempDir, writeFile } from '../config/helpers.ts';
import { capturingLogger } from '../helpers/log-lines.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const KEY = randomBytes(32).toString('base64');
const prefix = testPrefix('file-sync');
const redis = testRedis(prefix);

function yaml(apiKey: string, asin = 'B0TESTBOOK'): string {
  return [
    'workspaces:',
    '  - id: acme',
    '    baseUrl: http://127.0.0.1:1',
    `    apiKey: ${apiKey}`,
    `    books: [{ asin: ${asin} }]`,
    '',
  ].join('\n');
}

const warnings = (lines: { level: number; msg: string }[]) => lines.filter((line) => line.level >= 40);

it('a file with a secret in clear and no key, none stored yet: a warning that the file runs as read, with the reason', async () => {
  const store = openRevisionStore({ redis, prefix: `${prefix}a:`, env: {} });
  const file = writeFile(tempDir(), 'shelfwatch.yaml', yaml('sk_live_clear_secret_123'));
  const { logger, lines } = capturingLogger();
  await syncConfigFile(store, file, logger);
  expect(await store.currentRev()).toBe(0);
  const [line, ...more] = warnings(lines) as (
    | { level: number; msg: string; problems?: string }
    | undefined
  )[];
  expect(more).toEqual([]);
  expect(line?.level).toBe(40);
  expect(line?.msg).toBe(
    'config file not stored as a revision: this process runs the file as read at start and follows no change to it until one is stored',
  );
  expect(line?.problems).toContain('workspaces[0].apiKey');
  expect(line?.problems).toContain('SHELFWATCH_CONFIG_KEY is not set');
});

it('the file equal to the revision in force (SIGHUP reads it again): no warning, a debug line; an edit refused names the revision that stays', async () => {
  const store = openRevisionStore({ redis, prefix: `${prefix}b:`, env: { SHELFWATCH_CONFIG_KEY: KEY } });
  const dir = tempDir();
  const file = writeFile(dir, 'shelfwatch.yaml', yaml('sk_live_clear_secret_123'));
  const first = capturingLogger('debug');
  await syncConfigFile(store, file, first.logger);
  expect(await store.currentRev()).toBe(1);
  expect(first.lines.map((line) => line.msg)).toEqual(['config file stored as a revision']);

  for (const force of [false, true]) {
    const again = capturingLogger('debug');
    await syncConfigFile(store, file, again.logger, force);
    expect(warnings(again.lines)).toEqual([]);
    expect(again.lines.map((line) => [line.level, line.msg])).toEqual([
      [
        20,
        force
          ? 'config file matches the revision in force'
          : 'config file unchanged since it was last stored',
      ],
    ]);
  }
  expect(await store.currentRev()).toBe(1);

  writeFile(dir, 'shelfwatch.yaml', yaml('sk_live_clear_secret_123', 'not an asin'));
  const edited = capturingLogger();
  await syncConfigFile(store, file, edited.logger);
  expect(await store.currentRev()).toBe(1);
  const refused = warnings(edited.lines) as { level: number; msg: string; problems?: string }[];
  expect(refused.map((line) => [line.level, line.msg])).toEqual([
    [50, 'config file refused; revision 1 stays in force'],
  ]);
  expect(refused[0]?.problems).toContain('workspaces[0].books[0].asin');
});
