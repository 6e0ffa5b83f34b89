/**
 * probe's last-page request (src/tools/probe/probe-tail.ts): on book keywords paged by offsets or page
 * numbers whose parameter is not the usual name, the suggestion names the parameter the API took (no
 * "kept" guess left), from the names the API refused; so does the first other list paged another way.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type ContractFile, defaultContract, parseContract } from '../../src/api/index.ts';
import { parsePlan, type RunningSimulator, SimControlClient, startSimulator } from '../../src/sim/index.ts';
import { createSimDialect, probeService, suggestContract } from '../../src/tools/probe/index.ts';

const KEY = 'sk_probe_tail_0123456789';
const START = '2026-11-20T12:00:00Z';
const sims: RunningSimulator[] = [];
afterAll(async () => {
  for (const sim of sims) await sim.close();
});

const served = (pagination: NonNullable<ContractFile['pagination']>): ContractFile => ({
  version: 1,
  endpoints: { bookKeywords: { pagination } },
});

interface Case {
  style: string;
  dialect: ContractFile;
  param: string;
  endpoint: 'bookKeywords' | 'keywordSearch';
  spent: number;
}

const cases: Case[] = [
  {
    style: 'offset',
    dialect: served({ offset: { param: 'skip', total: 'meta.total' }, limit: { param: 'count', max: 200 } }),
    param: 'skip',
    endpoint: 'bookKeywords',
    // The first answer, then the usual name refused (a 400 naming it), then the one it takes.
    spent: 3,
  },
  {
    style: 'page',
    dialect: served({
      page: { param: 'pageNumber', firstPage: 1, totalPages: 'meta.pages' },
      limit: { param: 'perPage', max: 100 },
    }),
    param: 'pageNumber',
    endpoint: 'bookKeywords',
    spent: 3,
  },
  {
    // Not the keywords: the first list paged by numbers (a search), its third name.
    style: 'page',
    dialect: {
      version: 1,
      pagination: {
        page: { param: 'page_number', firstPage: 1, totalPages: 'meta.pages' },
        limit: { param: 'limit', max: 20 },
      },
    },
    param: 'page_number',
    endpoint: 'keywordSearch',
    spent: 4,
  },
];

describe.each(cases)(
  '$endpoint paged by $style under another name',
  ({ style, dialect, param, endpoint, spent: expected }) => {
    it(`finds "${param}" from the API's refusals with one last-page request per name`, async () => {
      const load = parseContract(dialect, 'dialect.yaml');
      if (!load.ok) throw new Error(JSON.stringify(load.problems));
      const sim = await startSimulator({
        port: 0,
        seed: 5,
        books: 1,
        speed: 0,
        startAt: START,
        keys: [{ key: KEY, workspace: 'ws', plan: parsePlan('custom:100000:10000000') }],
        dialect: createSimDialect(load.contract),
      });
      sims.push(sim);
      const control = new SimControlClient(sim);
      const asin = (await control.world()).books[0]?.asin ?? '';
      await control.close();
      let spent = 0;
      const unchecked: string[] = [];
      const answers = await probeService({
        baseUrl: sim.url,
        apiKey: KEY,
        contract: defaultContract(),
        endpoints: [endpoint],
        asin,
        now: Date.parse(START),
        unchecked,
        beforeRequest: async () => {
          spent += 1;
        },
      });
      expect(unchecked).toEqual([]);
      const tail = answers.find((a) => a.page !== undefined);
      expect(tail?.endpoint).toBe(endpoint);
      expect(tail?.page).toMatchObject({ style, param });
      expect(tail?.path).toContain(`${param}=`);
      expect(spent).toBe(expected);
      const suggestion = suggestContract(defaultContract(), answers);
      const pages =
        endpoint === 'bookKeywords'
          ? suggestion.contract.endpoints?.bookKeywords?.pagination
          : suggestion.contract.pagination;
      expect(style === 'offset' ? pages?.offset?.param : pages?.page?.param).toBe(param);
      expect(suggestion.undecided.filter((line) => line.includes('cannot be seen in an answer'))).toEqual([]);
      expect(parseContract(suggestion.contract, 'suggested.yaml').ok).toBe(true);
    });
  },
);
