/**
 * probe's exit code and the pagination a contract reads: an API that pages in a style (or with a
 * cursor at a path) the contract does not read would give `run` the first page of a list only, so
 * probe lists it with the fix and exits 3; the same answers read through a contract that pages as the
 * API does are no misfit. Served by `sim --contract` from a file that differs from the assumed
 * contract by its pagination only (fields, parameters and errors as the default).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractFile } from '../../src/api/contract/schema.ts';
import { type CompiledContract, defaultContract, parseContract } from '../../src/api/index.ts';
import {
  createSimDialect,
  PROBED_ENDPOINTS,
  probeService,
  suggestContract,
} from '../../src/tools/probe/index.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { type SimFixture, startSimFixture } from '../helpers/sim.ts';

const KEY = 'sk_probe_paging_0123456789';
const START = '2026-11-20T12:00:00Z';
const prefix = testPrefix('probe-paging');
testRedis(prefix);
const dir = tempDir();

/** Each style, at a place the assumed contract (a cursor at next_cursor) does not read. */
const STYLES: Record<string, ContractFile> = {
  'a cursor at another path': {
    version: 1,
    pagination: { cursor: { param: 'cursor', next: 'meta.nextCursor' } },
  },
  'a Link header': { version: 1, pagination: { linkHeader: {} } },
  'page numbers with a page count': {
    version: 1,
    pagination: { page: { param: 'page', firstPage: 1, totalPages: 'meta.pages' } },
  },
  'offsets with a total': { version: 1, pagination: { offset: { param: 'offset', total: 'meta.total' } } },
};

function compiled(file: ContractFile): CompiledContract {
  const load = parseContract(file, 'paging.yaml');
  if (!load.ok) throw new Error(JSON.stringify(load.problems));
  return load.contract;
}

const sims = new Map<string, SimFixture>();
beforeAll(async () => {
  for (const [name, file] of Object.entries(STYLES))
    sims.set(
      name,
      await startSimFixture({
        seed: 21,
        books: 3,
        key: KEY,
        workspace: 'main',
        speed: 0,
        startAt: START,
        plan: 'custom:1000:1000000',
        dialect: createSimDialect(compiled(file)),
      }),
    );
});
afterAll(async () => {
  for (const sim of sims.values()) await sim.close();
});

async function probed(sim: SimFixture, contract: CompiledContract) {
  const unchecked: string[] = [];
  const answers = await probeService({
    baseUrl: sim.url,
    apiKey: KEY,
    contract,
    endpoints: PROBED_ENDPOINTS,
    now: Date.parse(START),
    maxRequests: 30,
    unchecked,
    beforeRequest: async () => {},
  });
  return suggestContract(contract, answers);
}

describe.each(Object.keys(STYLES))('an API that pages by %s', (name) => {
  it('is a misfit of the assumed contract (its lists read to page 1 only), none of its own file', async () => {
    const sim = sims.get(name)!;
    const assumed = await probed(sim, defaultContract());
    expect(assumed.pagingChanges.length).toBeGreaterThan(0);
    for (const line of assumed.pagingChanges)
      expect(line).toMatch(
        /^pagination: \w+ pages by .*; the contract reads .*: run would read its first page only/,
      );
    const own = await probed(sim, compiled(STYLES[name]!));
    expect(own.pagingChanges).toEqual([]);
  });
});

describe('shelfwatch probe', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('exits 3 on a cursor at a path the contract does not read, and lists the fix', async () => {
    const sim = sims.get('a cursor at another path')!;
    const config = writeConfig(dir, 'paging.yaml', {
      redis: { url: redisUrl(), prefix },
      workspaces: [
        {
          id: 'main',
          baseUrl: sim.url,
          apiKey: KEY,
          plan: 'custom:1000:1000000',
          books: [{ asin: 'B0PROBE001' }],
        },
      ],
    });
    const outcome = await shelfwatch(['probe', '--config', config, '--out', join(dir, 'answers')]);
    expect(outcome.code).toBe(3);
    expect(outcome.stdout).toContain("The contract's fields fit every answer, but not its pagination.");
    expect(outcome.stdout).toMatch(
      /It would read only the first page of a list:\n {2}- pagination: \w+ pages by a cursor at "meta\.nextCursor"; the contract reads a cursor at "next_cursor"/,
    );
  });
});
