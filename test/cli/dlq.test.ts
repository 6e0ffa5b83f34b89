import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/app/runtime.ts';
import { DeliveryError } from '../../src/channels/notifier.ts';
import {
  type DeadLetter,
  type DeadLetterDeps,
  listDeadLetters,
  purgeDeadLetters,
  retryDeadLetters,
} from '../../src/deliver/dead-letters.ts';
import { inflightKey, orphanedGroups } from '../../src/deliver/groups.ts';
import { flushDueAt } from '../../src/deliver/processor.ts';
import { tempDir } from '../config/helpers.ts';
import { CapturingNotifier, makeAlert, pipelineForTest } from '../deliver/pipeline-harness.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';

const dir = tempDir();

/** A real pipeline, and a config file for the CLI naming the same Redis prefix and channels. */
async function pipeline(name: string, channels: CapturingNotifier[], attempts: number) {
  const started = await pipelineForTest(name, channels, attempts);
  const { prefix } = started;
  const config = writeConfig(dir, `${name}.yaml`, {
    redis: { url: redisUrl(), prefix },
    workspaces: [{ id: 'ws', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_unused', campaigns: [{ id: 'c' }] }],
    channels: channels.map((c) => ({ id: c.id, type: 'log' })),
  });
  return { ...started, config, deps: depsOf(started.runtime) };
}

function depsOf(runtime: Runtime): DeadLetterDeps {
  return {
    queue: runtime.deliverQueue,
    redis: runtime.redis,
    groups: runtime.deliveryDeps.groups,
    channelHealth: runtime.channelHealth,
    channels: runtime.config.channels.map((c) => c.id),
  };
}

async function deadLettersOnce(deps: DeadLetterDeps, count: number): Promise<DeadLetter[]> {
  await waitFor(`${count} dead letters`, async () => (await listDeadLetters(deps)).length === count, 15_000);
  return listDeadLetters(deps);
}

/**
 * Two alerts sent to a channel disabled before their flush runs: the flush fails before it takes
 * the group's buffer, and becomes a dead letter.
 */
async function disabledChannelDeadLetter(name: string) {
  const gone = new CapturingNotifier('gone');
  const started = await pipeline(name, [gone], 3);
  await started.runtime.channelHealth.disable('gone', 'Slack answered 404 channel_not_found');
  await started.send([makeAlert(1), makeAlert(2)]);
  const [letter] = await deadLettersOnce(started.deps, 1);
  return { ...started, gone, letter };
}

describe('dead letters of a failing channel', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('list shows them with their alerts; retry after the channel recovers delivers them', async () => {
    const broken = new CapturingNotifier('broken');
    const healthy = new CapturingNotifier('healthy');
    let failing = true;
    broken.failWith = () =>
      failing
        ? new DeliveryError('SMTP 451 mailbox busy', { channelId: 'broken', retryable: true, status: 451 })
        : undefined;
    const { send, deps, config } = await pipeline('dlq-retry', [broken, healthy], 2);
    await send([makeAlert(1), makeAlert(2)]);
    await healthy.waitForAlerts(2, 10_000);
    const [letter] = await deadLettersOnce(deps, 1);
    expect(letter).toMatchObject({
      channelId: 'broken',
      groupKey: 'ws|keyword_rank_drop|normal|show',
      alertCount: 2,
      titles: ['keyword 1 fell', 'keyword 2 fell'],
      failedReason: 'SMTP 451 mailbox busy',
      attempts: 2,
    });
    expect(letter?.failedAtMs).toEqual(expect.any(Number));

    const listed = await shelfwatch(['dlq', 'list', '--config', config]);
    expect(listed.code).toBe(0);
    const row = listed.stdout.split('\n').find((line) => line.includes('broken')) ?? '';
    expect(row).toContain(letter?.jobId);
    expect(row).toMatch(/broken\s+2\s+keyword 1 fell; keyword 2 fell\s+SMTP 451 mailbox busy\s+2\s+\d{4}-/);
    const json = await shelfwatch(['dlq', 'list', '--channel', 'broken', '--json', '--config', config]);
    expect(JSON.parse(json.stdout)).toEqual([letter]);
    const none = await shelfwatch(['dlq', 'list', '--channel', 'healthy', '--config', config]);
    expect(none.stdout).toBe('no dead letters\n');

    failing = false;
    const retried = await shelfwatch(['dlq', 'retry', '--channel', 'broken', '--config', config]);
    expect(retried.stderr).toBe('');
    expect(retried.stdout).toBe('retried 1 dead letter (2 alerts)\n');
    // The pipeline's worker (in this process) picks the retried job up.
    await broken.waitForAlerts(2, 10_000);
    expect(broken.fingerprints().sort()).toEqual([makeAlert(1).fingerprint, makeAlert(2).fingerprint]);
    await waitFor('an empty DLQ', async () => (await listDeadLetters(deps)).length === 0, 10_000);
  });

  it('retry re-enables a channel disabled after a permanent refusal', async () => {
    const gone = new CapturingNotifier('gone');
    const other = new CapturingNotifier('other');
    let refusing = true;
    gone.failWith = () =>
      refusing
        ? new DeliveryError('Slack answered 404 channel_not_found', {
            channelId: 'gone',
            retryable: false,
            disableChannel: true,
            status: 404,
          })
        : undefined;
    const { send, deps, runtime } = await pipeline('dlq-enable', [gone, other], 3);
    await send([makeAlert(5)]);
    await other.waitForAlerts(2, 10_000); // the alert and "gone was disabled"
    const [letter] = await deadLettersOnce(deps, 1);
    expect(letter?.attempts).toBe(1); // a permanent refusal spends no more attempts
    expect(await runtime.channelHealth.disabledReason('gone')).toContain('channel_not_found');

    refusing = false;
    const report = await retryDeadLetters(deps, { channelId: 'gone' });
    expect(report.enabled).toEqual(['gone']);
    expect(report.retried.map((d) => d.jobId)).toEqual([letter?.jobId]);
    await gone.waitForAlerts(1, 10_000);
    expect(gone.fingerprints()).toEqual([makeAlert(5).fingerprint]);
    expect(await runtime.channelHealth.disabledReason('gone')).toBeNull();
  });

  it('a flush that fails before taking its group keeps the alerts; later alerts of the group are not stuck', async () => {
    const { gone, send, deps, runtime, letter: first } = await disabledChannelDeadLetter('dlq-stuck');
    expect(first).toMatchObject({ alertCount: 2, titles: ['keyword 1 fell', 'keyword 2 fell'] });
    // A later alert of the group opens a new window (a new flush job), not the failed job's id.
    await send([makeAlert(3)]);
    const letters = await deadLettersOnce(deps, 2);
    expect(letters.map((d) => d.titles)).toEqual([['keyword 1 fell', 'keyword 2 fell'], ['keyword 3 fell']]);
    // Nothing is left for the janitor to flush again into the disabled channel.
    expect(await orphanedGroups(runtime.redis, runtime.prefix)).toEqual([]);

    const report = await retryDeadLetters(deps, { channelId: 'gone' });
    expect(report.enabled).toEqual(['gone']);
    expect(report.retried.map((d) => d.alertCount)).toEqual([2, 1]);
    await gone.waitForAlerts(3, 10_000);
    expect(gone.fingerprints().sort()).toEqual([1, 2, 3].map((n) => makeAlert(n).fingerprint));
    await waitFor('an empty DLQ', async () => (await listDeadLetters(deps)).length === 0, 10_000);
  });

  it('a dead letter whose alerts an older version left in the group buffer lists and purges them', async () => {
    const { deps, runtime, letter } = await disabledChannelDeadLetter('dlq-legacy');
    const hash = letter?.groupHash ?? '';
    const jobId = letter?.jobId ?? '';
    // What the older version left: the alerts in the buffer, the due time still the failed job's.
    const keys = deps.groups.keys(hash);
    await runtime.redis.rename(inflightKey(runtime.prefix, hash, jobId), keys.buffer);
    await runtime.redis.set(keys.due, String(flushDueAt(jobId)));
    expect((await listDeadLetters(deps)).map((d) => d.alertCount)).toEqual([2]);
    expect(await purgeDeadLetters(deps)).toHaveLength(1);
    expect(await runtime.redis.exists(keys.buffer, keys.due, inflightKey(runtime.prefix, hash, jobId))).toBe(
      0,
    );
  });

  it('purge says how many, then removes them and their alerts', async () => {
    const dead = new CapturingNotifier('dead');
    dead.failWith = () =>
      new DeliveryError('SMTP 421 try later', { channelId: 'dead', retryable: true, status: 421 });
    const { send, deps, config, runtime } = await pipeline('dlq-purge', [dead], 1);
    await send([makeAlert(8), makeAlert(9), makeAlert(10)]);
    const [letter] = await deadLettersOnce(deps, 1);
    expect(letter?.alertCount).toBe(3);

    const purged = await shelfwatch(['dlq', 'purge', '--config', config]);
    expect(purged.code).toBe(0);
    expect(purged.stdout).toBe('purging 1 dead letter (3 alerts)\npurged 1 dead letter\n');
    expect(await listDeadLetters(deps)).toEqual([]);
    expect(await runtime.deliveryDeps.groups.inflight(letter?.groupHash ?? '', letter?.jobId ?? '')).toEqual(
      [],
    );
    expect((await runtime.deliverQueue.getJobCounts('failed')).failed).toBe(0);
  });

  it('refuses to retry an unknown channel (exit 2)', async () => {
    const config = writeConfig(dir, 'unknown.yaml', {
      redis: { url: redisUrl(), prefix: testPrefix('dlq-unknown') },
      workspaces: [
        { id: 'ws', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_unused', campaigns: [{ id: 'c' }] },
      ],
      channels: [{ id: 'log', type: 'log' }],
    });
    const outcome = await shelfwatch(['dlq', 'retry', '--channel', 'nope', '--config', config]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe('shelfwatch: --channel: no channel "nope" in the config (known: log)\n');
  });
});
