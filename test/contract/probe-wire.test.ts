/**
 * probe on dialect G (the wire's habits): it finds a page token that must go alone (a 400 to the
 * token beside the filters, then the token alone), values the API reads only the first of when
 * repeated (a 200 that holds items for the first ASIN and keyword only, then comma-joined), and,
 * when it meets a 429, the header that tells the month's; each with its evidence, within the cap,
 * and nothing `validate` refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultContract, parseContract } from '../../src/api/index.ts';
import { parsePlan, type RunningSimulator, startSimulator } from '../../src/sim/index.ts';
import { suggestContract } from '../../src/tools/probe/index.ts';
import { dialect, probeCounting } from './helpers.ts';

const KEY = 'sk_probe_wire_0123456789';
const START = '2026-11-20T12:00:00Z';
const G = dialect('dialect-g');
const sims: RunningSimulator[] = [];

async function serve(plan: string): Promise<RunningSimulator> {
  const sim = await startSimulator({
    port: 0,
    seed: 5,
    books: 3,
    speed: 0,
    startAt: START,
    keys: [{ key: KEY, workspace: 'ws', plan: parsePlan(plan) }],
    ...(G.sim === undefined ? {} : { dialect: G.sim }),
  });
  sims.push(sim);
  return sim;
}

async function probe(sim: RunningSimulator, maxRequests = 30) {
  const { answers, spent, unchecked } = await probeCounting({
    url: sim.url,
    apiKey: KEY,
    now: START,
    maxRequests,
  });
  const suggestion = suggestContract(defaultContract(), answers);
  const load = parseContract(suggestion.contract, 'suggested.yaml');
  return { spent, unchecked, suggestion, problems: load.ok ? [] : load.problems };
}

let roomy: RunningSimulator;
beforeAll(async () => {
  roomy = await serve('custom:100000:10000000');
});
afterAll(async () => {
  for (const sim of sims) await sim.close();
});

describe('probe on dialect G', () => {
  it('suggests alone: true and comma-joined lists, with the evidence, in 11 requests', async () => {
    const { spent, unchecked, suggestion, problems } = await probe(roomy);
    expect(problems).toEqual([]);
    expect(unchecked).toEqual([]);
    expect(spent).toBe(11);
    expect(suggestion.contract.pagination?.cursor).toEqual({
      param: 'nextToken',
      next: 'pagination.nextToken',
      alone: true,
    });
    expect(suggestion.contract.params).toMatchObject({
      asin: { name: 'asin', list: 'comma' },
      keyword: { name: 'keyword', list: 'comma' },
    });
    // A misfit of the contract (probe exits 3), not only a note: the default's lists would fail on page 2.
    expect(suggestion.paramChanges).toContain(
      'pagination.cursor.alone: true (the token refused beside the filters)',
    );
    const notes = suggestion.undecided.join('\n');
    expect(notes).toMatch(
      /keywordSearch's second page with nextToken and the filters answered 400 naming q; with nextToken alone/,
    );
    expect(notes).toMatch(
      /rankings\.asin: asin=B\w+&asin=B\w+ answered 200 with items for B\w+ only .*list: comma/,
    );
    expect(notes).toMatch(/rankings\.keyword: .*answered 200 with items for .* only .*list: comma/);
    expect(notes).toContain('errors.monthWhen: not checked (no 429 was answered)');
  });

  it('leaves alone unchecked, and says so, when the cap leaves no request for the token alone', async () => {
    const { spent, unchecked, suggestion } = await probe(roomy, 10);
    expect(spent).toBe(10);
    expect(unchecked).toEqual([expect.stringMatching(/keywordSearch: .*cursor\.alone is unchecked/)]);
    expect(suggestion.contract.pagination?.cursor?.alone).toBeUndefined();
    expect(suggestion.paramChanges.filter((c) => c.includes('alone'))).toEqual([]);
  });

  it("suggests the header that tells the month's 429 when a 429 is met", async () => {
    // Six requests a month: the probe's seventh is the month's 429.
    const { suggestion, problems } = await probe(await serve('custom:100000:6'));
    expect(problems).toEqual([]);
    expect(suggestion.contract.errors?.monthWhen).toEqual({ header: 'x-ratelimit-scope', equals: 'month' });
    expect(suggestion.undecided.join('\n')).toMatch(
      /errors\.monthWhen: the 429 to GET \/v1\/\S+ said x-ratelimit-scope: month/,
    );
  });
});
