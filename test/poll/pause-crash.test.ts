/** A workspace pause alert and its recovery stay paired when the process dies around the enqueue. */
import { expect, it } from 'vitest';
import { PauseEpisodes } from '../../src/budget/pause-episode.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { announcePause, closePauseEpisode } from '../../src/poll/pause-alerts.ts';
import type { AlertSink } from '../../src/poll/processor.ts';
import { ConfigTargetRegistry } from '../../src/poll/registry.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { CapturingSink, parseOrThrow } from './engine-harness.ts';

const prefix = testPrefix('pause-crash');
const redis = testRedis(prefix);
const config = parseOrThrow({
  redis: { prefix },
  workspaces: [
    {
      id: 'ws',
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'sk_pause_crash_0123456789',
      sales: { marketplaces: ['US'] },
    },
  ],
  rules: [{ id: 'health', kind: 'source_health', failures: 3 }],
});

/** A refused key (alerted at once), announced by a process that dies before or after the enqueue. */
async function refusedKeyDyingAt(when: 'before' | 'after', workspace: string) {
  const clock = new ManualClock(1_790_000_000_000);
  const sink = new CapturingSink();
  const deps = {
    pauses: new PauseEpisodes(redis, prefix),
    registry: new ConfigTargetRegistry(config),
    alerts: sink,
    clock,
    logger: silentLogger(),
  };
  const dying: AlertSink = {
    async enqueue(alerts) {
      if (when === 'after') await sink.enqueue(alerts);
      throw new Error('SIGKILL');
    },
  };
  const untilMs = clock.now() + 60_000;
  const episode = await deps.pauses.record(workspace, 'unauthorized', untilMs, clock.now());
  const pause = { reason: 'unauthorized' as const, untilMs, setNow: true, episode };
  await expect(announcePause({ ...deps, alerts: dying }, workspace, pause)).rejects.toThrow('SIGKILL');
  clock.set(untilMs + 1);
  await closePauseEpisode(deps, workspace);
  // What reaches delivery: the queue ignores a job id it has (ids derive from fingerprints).
  return [...new Map(sink.alerts.map((alert) => [alert.fingerprint, alert.kind])).values()];
}

it('killed after enqueueing the pause alert: the episode still announces its recovery', async () => {
  expect(await refusedKeyDyingAt('after', 'ws')).toEqual(['source_health', 'source_recovered']);
});

it('killed before enqueueing it: the pause alert goes out with the recovery, in that order', async () => {
  expect(await refusedKeyDyingAt('before', 'ws')).toEqual(['source_health', 'source_recovered']);
});
