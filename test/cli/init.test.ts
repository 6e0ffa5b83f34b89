/**
 * `shelfwatch init` against the simulator: a config that validate and plan accept, watching every
 * book of the account (the rankings list them) and every ARC campaign with reviews; never over an
 * existing config without --force.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { tempDir } from '../config/helpers.ts';
import { allDialects } from '../contract/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch } from '../helpers/cli.ts';
import { simForTest, useSimulator } from '../helpers/sim.ts';

const KEY = 'sk_init_test_0123456789';
const dir = tempDir();

const SIM = { seed: 4, books: 3, campaigns: 2, key: KEY, workspace: 'main', plan: 'custom:1000:1000000' };
const fx = useSimulator(SIM);

describe('shelfwatch init', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('writes a config of every book and campaign, validated and planned; not again without --force', async () => {
    const file = join(dir, 'shelfwatch.yaml');
    const seq = await fx.control.lastSeq();
    const outcome = await shelfwatch(['init', '--base-url', fx.url, '--out', file], {
      PUBLISHING_API_KEY: KEY,
    });
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    // Six endpoints, the rankings' and reviews' second look with a book and a campaign filter, and the
    // second page of a cursor list (does the token go beside the filters: cursor.alone).
    expect((await fx.control.requestsSince(seq)).length).toBeLessThanOrEqual(9);
    expect(outcome.stdout).toContain('validate: config OK: 1 workspace');
    expect(outcome.stdout).toContain('plan (offline) for workspace main');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(KEY);
    const written = parseYaml(text) as {
      redis: { url: string };
      workspaces: { apiKey: string; books: { asin: string }[]; campaigns: { id: string }[] }[];
    };
    // Redis is written down, REDIS_URL first (which wins over the file in any case).
    expect(written.redis.url).toBe(['$', '{REDIS_URL:-redis://127.0.0.1:6379}'].join(''));
    const ws = written.workspaces[0];
    // The config names the variable; the key itself stays in the environment.
    expect(ws?.apiKey).toBe(['$', '{PUBLISHING_API_KEY}'].join(''));
    const world = fx.world;
    expect(ws?.books.map((b) => b.asin).sort()).toEqual(world.books.map((b) => b.asin).sort());
    expect(ws?.campaigns.map((c) => c.id).sort()).toEqual(world.campaigns.map((c) => c.campaign_id).sort());

    const again = await shelfwatch(['init', '--base-url', fx.url, '--out', file], {
      PUBLISHING_API_KEY: KEY,
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`shelfwatch: ${file} exists: init never overwrites a config without --force\n`);
  });

  it('on a dialect unlike ours: the contract file beside it, and the books and campaigns all the same', async () => {
    const dialectB = allDialects().find((d) => d.name === 'dialect-b');
    const other = await simForTest({
      ...SIM,
      ...(dialectB?.sim === undefined ? {} : { dialect: dialectB.sim }),
    });
    const file = join(dir, 'b', 'shelfwatch.yaml');
    const outcome = await shelfwatch(['init', '--base-url', other.url, '--out', file], {
      PUBLISHING_API_KEY: KEY,
    });
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/Wrote .*: 3 books, 2 ARC campaigns, api.contract .*publishing-api\.yaml/);
    const written = parseYaml(readFileSync(file, 'utf8')) as {
      workspaces: { api: { contract: string } }[];
    };
    expect(written.workspaces[0]?.api.contract).toBe('./publishing-api.yaml');
    expect(readFileSync(join(dir, 'b', 'publishing-api.yaml'), 'utf8')).toContain('# TODO: ');

    // The contract is the user's to edit: with the config gone, init still leaves it alone.
    const edited = `${readFileSync(join(dir, 'b', 'publishing-api.yaml'), 'utf8')}# edited by hand\n`;
    writeFileSync(join(dir, 'b', 'publishing-api.yaml'), edited);
    rmSync(file);
    const again = await shelfwatch(['init', '--base-url', other.url, '--out', file], {
      PUBLISHING_API_KEY: KEY,
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      'publishing-api.yaml exists: init never overwrites a contract without --force',
    );
    expect(readFileSync(join(dir, 'b', 'publishing-api.yaml'), 'utf8')).toBe(edited);
  });
});
