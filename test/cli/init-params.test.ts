/**
 * `shelfwatch init` on a server that refuses the assumed `limit=` with a 400 naming it (its page size
 * is `perPage`) and gives 2 items a page whatever is asked: init reads the lists with the parameter
 * name probe found, finds every book of five, and writes a config (and contract) that validates and
 * that reads the lists the same way `run` will.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { collectAll, createAnalyticsClient, loadContractFile, parseContract } from '../../src/api/index.ts';
import { createSimDialect } from '../../src/tools/probe/index.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch } from '../helpers/cli.ts';
import { simForTest } from '../helpers/sim.ts';

const KEY = 'sk_init_params_0123456789';
const BOOKS = 5;

interface Written {
  workspaces: { api?: { contract: string }; books: { asin: string }[]; campaigns: { id: string }[] }[];
}

/** The assumed contract but for the page size's name; the server's own cap is 2 a page. */
function perPageDialect() {
  const load = parseContract({ pagination: { limit: { param: 'perPage', max: 100 } } }, 'per-page.yaml');
  if (!load.ok) throw new Error(JSON.stringify(load.problems));
  return createSimDialect(load.contract, { pageCap: 2 });
}

describe('shelfwatch init after a 400 on limit=', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it("reads the lists under the page size's name probe found: every book, a config that validates", async () => {
    const sim = await simForTest({
      seed: 3,
      books: BOOKS,
      campaigns: 2,
      key: KEY,
      workspace: 'main',
      plan: 'custom:1000:1000000',
      dialect: perPageDialect(),
    });
    const file = join(tempDir(), 'shelfwatch.yaml');
    const outcome = await shelfwatch(['init', '--base-url', sim.url, '--out', file], {
      PUBLISHING_API_KEY: KEY,
    });
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    const requests = await sim.control.requestsSince(0);
    // The server does refuse limit= and name it: the probe met it, and nothing after the probe did.
    const refused = requests.filter((r) => r.status === 400);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => /(^|&)limit=/.test(r.query))).toBe(true);
    const rankingPages = requests.filter((r) => r.path === '/v1/rankings' && r.status === 200);
    expect(rankingPages.length).toBeGreaterThan(2);
    expect(rankingPages.every((r) => /(^|&)perPage=/.test(r.query) || r.query.includes('cursor='))).toBe(
      true,
    );

    const world = sim.world;
    expect(world.books).toHaveLength(BOOKS);
    const written = parseYaml(readFileSync(file, 'utf8')) as Written;
    const ws = written.workspaces[0];
    expect(ws?.books.map((b) => b.asin).sort()).toEqual(world.books.map((b) => b.asin).sort());
    expect(ws?.campaigns.map((c) => c.id).sort()).toEqual(world.campaigns.map((c) => c.campaign_id).sort());
    // The fields fit the assumed contract; the page size's name does not, and init says so.
    expect(outcome.stdout).toContain(
      "The contract's fields fit every answer, but the API took parameters otherwise than it names them: pagination.limit.param: perPage",
    );
    expect(outcome.stdout).toContain(`Wrote ${file}: ${BOOKS} books, 2 ARC campaigns, api.contract`);
    expect(outcome.stdout).toContain('validate: config OK: 1 workspace');
    const validate = await shelfwatch(['validate', '--config', file], { PUBLISHING_API_KEY: KEY });
    expect(validate.code).toBe(0);
    // probe on the same answers: the assumed contract does not fit this API (exit 3), as run would find.
    const offline = await shelfwatch(['probe', '--offline', join(dirname(file), 'probe-answers')]);
    expect(offline.stdout).toContain('pagination.limit.param: perPage');
    expect(offline.code).toBe(3);

    // The contract the config names pages the way the server takes it: run reads the whole list.
    const contractFile = resolve(dirname(file), ws?.api?.contract ?? '-');
    const load = loadContractFile(contractFile);
    if (!load.ok) throw new Error(JSON.stringify(load.problems));
    expect(load.contract.pagination.rankings.limitParam).toBe('perPage');
    const client = createAnalyticsClient({ baseUrl: sim.url, apiKey: KEY, contract: load.contract });
    try {
      const all = await collectAll(client.getRankings({ limit: 100 }));
      expect(new Set(all.items.map((series) => series.asin)).size).toBe(BOOKS);
      expect(all.pages).toBeGreaterThan(1);
    } finally {
      await client.close();
    }
  });
});
