import { describe, expect, it } from 'vitest';
import { PauseEpisodes } from '../../src/budget/pause-episode.ts';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { systemClock } from '../../src/util/clock.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('resume');
const redis = testRedis(prefix);
const dir = tempDir();
const config = writeConfig(dir, 'resume.yaml', {
  redis: { url: redisUrl(), prefix },
  workspaces: [
    { id: 'studio', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_unused', campaigns: [{ id: 'c' }] },
  ],
});

describe('shelfwatch resume', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('lifts a month-long pause and says what it lifted; the episode waits for an ok answer', async () => {
    const budget = new RedisRequestBudget({ redis, prefix, clock: systemClock });
    const episodes = new PauseEpisodes(redis, prefix);
    const now = Date.now();
    const until = now + 30 * 86_400_000;
    await budget.pauseUntil('studio', until, 'rate_limited');
    await episodes.record('studio', 'rate_limited', until, now);

    const out = await shelfwatch(['resume', 'studio', '--config', config]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^lifted the pause of workspace studio \(rate_limited, since .+, until .+\)/);
    expect(out.stdout).toContain('; 0 parked polls sent out now, the others at their next scheduled run');
    expect((await budget.usage('studio')).pausedUntilMs).toBeNull();
    expect(await budget.tryAcquire('studio', { perMinute: 10, perMonth: 100 })).toMatchObject({
      granted: true,
    });
    // Still open (the next ok poll announces the recovery), but its pause now ends at the resume.
    expect((await episodes.current('studio'))?.untilMs).toBeLessThanOrEqual(Date.now());

    const again = await shelfwatch(['resume', 'studio', '--config', config]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^workspace studio was not paused/);
  });

  it('exits 2 for a workspace the config does not have', async () => {
    const out = await shelfwatch(['resume', 'nope', '--config', config]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('no workspace "nope" in the config (known: studio)');
  });
});
