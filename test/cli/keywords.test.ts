import { beforeAll, describe, expect, it } from 'vitest';
import type { KeywordSearchResult } from '../../src/api/index.ts';
import { parsePlan } from '../../src/sim/index.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';

const KEY = 'sk_keywords_cli_0123456789';
const LIMITED_KEY = 'sk_keywords_limited_0123456789';
const prefix = testPrefix('keywords');
testRedis(prefix);
const dir = tempDir();
let config: string;

interface Printed {
  workspace: string;
  query: string;
  marketplace: string;
  results: KeywordSearchResult[];
  requests: number;
}

const fx = useSimulator({
  seed: 3,
  books: 2,
  key: KEY,
  workspace: 'sim-kw',
  plan: 'custom:1000:1000000',
  otherKeys: [
    {
      key: LIMITED_KEY,
      workspace: 'sim-limited',
      plan: parsePlan('custom:1000:1000000'),
      disabledEndpoints: ['/v1/keywords/search'],
    },
  ],
});

beforeAll(async () => {
  const campaign = fx.world.campaigns[0]?.campaign_id ?? 'c';
  config = writeConfig(dir, 'keywords.yaml', {
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'main',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:1000:1000000',
        campaigns: [{ id: campaign }],
      },
      { id: 'limited', baseUrl: fx.url, apiKey: LIMITED_KEY, campaigns: [{ id: campaign }] },
    ],
  });
});

async function searches(sinceSeq: number) {
  return (await fx.control.requestsSince(sinceSeq)).filter((r) => r.path === '/v1/keywords/search');
}

describe('shelfwatch keywords', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('--json: the top N by search volume, from one request', async () => {
    const seq = await fx.control.lastSeq();
    const outcome = await shelfwatch([
      'keywords',
      'cozy mystery',
      '-w',
      'main',
      '--limit',
      '5',
      '--json',
      '--config',
      config,
    ]);
    expect(outcome.stderr).toBe('');
    const printed = JSON.parse(outcome.stdout) as Printed;
    expect(printed).toMatchObject({
      workspace: 'main',
      query: 'cozy mystery',
      marketplace: 'US',
      requests: 1,
    });
    expect(printed.results).toHaveLength(5);
    const volumes = printed.results.map((r) => r.search_volume);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    for (const r of printed.results) {
      expect(r.competition).toBeGreaterThanOrEqual(0);
      expect(r.intent_score).toBeLessThanOrEqual(1);
    }
    expect(await searches(seq)).toHaveLength(1);
  });

  it('reads pages of 100 until the limit, and prints a table', async () => {
    const seq = await fx.control.lastSeq();
    const outcome = await shelfwatch([
      'keywords',
      'romance',
      '-w',
      'main',
      '-m',
      'uk',
      '-n',
      '150',
      '--config',
      config,
    ]);
    expect(outcome.code).toBe(0);
    const lines = outcome.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('150 keywords for "romance" in UK, by search volume (workspace main, 2 requests)');
    expect(lines[2]).toMatch(/^keyword\s+search volume\s+competition\s+intent$/);
    expect(lines).toHaveLength(4 + 150);
    const volumes = lines
      .slice(4)
      .map((line) => Number(/\s([\d,]+)\s+\d\.\d\d\s+\d\.\d\d$/.exec(line)?.[1]?.replaceAll(',', '')));
    expect(volumes.every((v) => v > 0)).toBe(true);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect((await searches(seq)).map((r) => r.status)).toEqual([200, 200]);
  });

  it('refuses bad flags with exit 2 and spends no request', async () => {
    const seq = await fx.control.lastSeq();
    const cases: [string[], string][] = [
      [['--marketplace', 'XX', '-w', 'main'], '--marketplace expects one of US, UK'],
      [['--marketplace', 'GB', '-w', 'main'], 'got "GB" (did you mean UK?)'],
      [['--limit', '0', '-w', 'main'], '--limit expects a whole number from 1 to 500, got "0"'],
      [['--limit', 'ten', '-w', 'main'], '--limit expects a whole number'],
      [['-w', 'nope'], '--workspace: no workspace "nope" in the config (known: main, limited)'],
      [[], 'the config has several workspaces: pass --workspace (one of main, limited)'],
    ];
    const outcomes = await Promise.all(
      cases.map(([flags]) => shelfwatch(['keywords', 'cozy', ...flags, '--config', config])),
    );
    cases.forEach(([flags, message], at) => {
      const outcome = outcomes[at];
      expect(outcome?.code, flags.join(' ')).toBe(2);
      expect(outcome?.stderr).toContain(message);
      expect(outcome?.stderr.trim().split('\n')).toHaveLength(1);
    });
    expect(await searches(seq)).toEqual([]);
  });

  it('says in one line when the plan has no keyword search (403), exit 1', async () => {
    const outcome = await shelfwatch(['keywords', 'cozy', '-w', 'limited', '--config', config]);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
    expect(outcome.stderr).toContain('keyword search is not enabled for workspace "limited"\'s plan');
    expect(outcome.stderr).toContain('403');
  });
});
