/**
 * `cursor.alone` found where the contract already reads the cursor: the first pages show nothing of
 * it, so probe asks the second page of one list (one request more, planned and counted against the
 * cap), and once more with the token alone when the API refuses it beside the filters. Served by
 * `sim --contract` from the assumed contract with `alone: true` (a cursor at the default's place).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompiledContract, defaultContract, parseContract } from '../../src/api/index.ts';
import {
  createSimDialect,
  PROBED_ENDPOINTS,
  plannedRequests,
  suggestContract,
} from '../../src/tools/probe/index.ts';
import { type SimFixture, startSimFixture } from '../helpers/sim.ts';
import { probeCounting } from './helpers.ts';

const KEY = 'sk_probe_alone_0123456789';
const START = '2026-11-20T12:00:00Z';

function aloneContract(): CompiledContract {
  const load = parseContract(
    { version: 1, pagination: { cursor: { param: 'cursor', next: 'next_cursor', alone: true } } },
    'alone.yaml',
  );
  if (!load.ok) throw new Error(JSON.stringify(load.problems));
  return load.contract;
}

let alone: SimFixture;
let plain: SimFixture;
beforeAll(async () => {
  const options = { seed: 21, books: 3, key: KEY, workspace: 'main', speed: 0, startAt: START };
  alone = await startSimFixture({ ...options, dialect: createSimDialect(aloneContract()) });
  plain = await startSimFixture(options);
});
afterAll(async () => {
  await alone?.close();
  await plain?.close();
});

async function probe(sim: SimFixture, maxRequests = 30) {
  const { answers, unchecked, spent } = await probeCounting({
    url: sim.url,
    apiKey: KEY,
    now: START,
    maxRequests,
  });
  return { suggestion: suggestContract(defaultContract(), answers), unchecked, spent };
}

describe('probe: cursor.alone where the contract reads the cursor', () => {
  it('plans one request more for it, before it starts', () => {
    expect(plannedRequests(PROBED_ENDPOINTS, undefined, defaultContract())).toBe(
      plannedRequests(PROBED_ENDPOINTS, undefined) + 1,
    );
    // A contract that already says alone asks nothing more.
    expect(plannedRequests(PROBED_ENDPOINTS, undefined, aloneContract())).toBe(
      plannedRequests(PROBED_ENDPOINTS, undefined),
    );
  });

  it('finds that the token goes alone: a misfit (exit 3) with alone: true suggested, two requests', async () => {
    const { suggestion, unchecked, spent } = await probe(alone);
    expect(unchecked).toEqual([]);
    expect(suggestion.paramChanges).toContain(
      'pagination.cursor.alone: true (the token refused beside the filters)',
    );
    expect(suggestion.contract.pagination?.cursor).toMatchObject({ next: 'next_cursor', alone: true });
    expect(suggestion.undecided.join('\n')).toMatch(
      /second page with cursor and the filters answered 400 naming .*cursor\.alone: true .*\(2 requests\)/,
    );
    expect(spent).toBe(plannedRequests(PROBED_ENDPOINTS, undefined, defaultContract()) + 1);
  });

  it('finds that the token goes beside the filters on the assumed API: no change, one request', async () => {
    const { suggestion, unchecked, spent } = await probe(plain);
    expect(unchecked).toEqual([]);
    expect(suggestion.paramChanges).toEqual([]);
    expect(suggestion.contract.pagination?.cursor?.alone).toBeUndefined();
    expect(suggestion.undecided.join('\n')).toContain('cursor.alone not needed; 1 request');
    expect(spent).toBe(plannedRequests(PROBED_ENDPOINTS, undefined, defaultContract()));
  });

  it('says cursor.alone is unchecked when the cap leaves no request for it', async () => {
    const cap = plannedRequests(PROBED_ENDPOINTS, undefined);
    const { unchecked, spent, suggestion } = await probe(alone, cap);
    expect(spent).toBe(cap);
    expect(unchecked).toEqual([
      expect.stringMatching(/the cap of \d+ requests was reached \(cursor\.alone is unchecked\)/),
    ]);
    expect(suggestion.paramChanges).toEqual([]);
  });
});
