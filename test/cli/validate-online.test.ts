/** `validate --online`: one request per configured book and campaign; an unknown ASIN is named. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';

const KEY = 'sk_validate_online_0123456789';
const prefix = testPrefix('validate-online');
testRedis(prefix);
const dir = tempDir();
let asin: string;
let campaign: string;

const fx = useSimulator({
  seed: 4,
  books: 2,
  key: KEY,
  workspace: 'main',
  plan: 'custom:1000:1000000',
});

beforeAll(async () => {
  const world = fx.world;
  asin = world.campaigns[0]?.asin ?? '';
  campaign = world.campaigns[0]?.campaign_id ?? '';
});

afterAll(async () => {});

function config(name: string, books: string[], campaigns: string[]): string {
  return writeConfig(dir, `${name}.yaml`, {
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'main',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:1000:1000000',
        books: books.map((b) => ({ asin: b, marketplaces: ['US'] })),
        campaigns: campaigns.map((id) => ({ id })),
      },
    ],
  });
}

describe('shelfwatch validate --online', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('names an ASIN and a campaign the API does not know (exit 2), one request each', async () => {
    const seq = await fx.control.lastSeq();
    const outcome = await shelfwatch([
      'validate',
      '--online',
      '--config',
      config('unknown', [asin, 'B0NOSUCH00'], [campaign, 'camp-nosuch']),
    ]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toContain('validate --online: 4 requests');
    expect(outcome.stderr).toContain(
      'workspaces[0].books[1].asin: the API does not know B0NOSUCH00 in US (404',
    );
    expect(outcome.stderr).toContain(
      'workspaces[0].campaigns[1].id: the API does not know ARC campaign camp-nosuch',
    );
    expect(outcome.stderr).not.toContain('books[0]');
    expect((await fx.control.requestsSince(seq)).length).toBe(4);
  });

  it('passes when every book and campaign exists', async () => {
    const outcome = await shelfwatch([
      'validate',
      '--online',
      '--config',
      config('known', [asin], [campaign]),
    ]);
    // Notes only (console.publicUrl unset: no mute links, since 07e2c3e); no problem with the config.
    expect(
      outcome.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('shelfwatch: note: ')),
    ).toEqual([]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('online: every book and campaign exists');
  });
});
