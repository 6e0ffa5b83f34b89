import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleAlertTitle } from '../../src/deliver/sample-alert.ts';
import { tempDir } from '../config/helpers.ts';
import { DEFAULT_WEBHOOK_PATH, type SlackReceiver, startSlackReceiver } from '../helpers/slack-receiver.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from './helpers.ts';

const dir = tempDir();
let receiver: SlackReceiver;
let config: string;

beforeAll(async () => {
  receiver = await startSlackReceiver();
  config = writeConfig(dir, 'channels.yaml', {
    workspaces: [{ id: 'ws', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_unused', campaigns: [{ id: 'c' }] }],
    channels: [
      { id: 'ops-log', type: 'log' },
      { id: 'team', type: 'slack', webhookUrl: receiver.url, allowAnyHost: true },
    ],
  });
});

afterAll(async () => {
  await receiver?.close();
});

/** The webhook's secret part must never be printed. */
const SECRET = DEFAULT_WEBHOOK_PATH.split('/').at(-1) ?? '';

describe('shelfwatch test-alert', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('sends a marked sample through every channel and says ok for each', async () => {
    const outcome = await shelfwatch(['test-alert', '--config', config]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe('ok      ops-log (log)\nok      team (slack)\n');
    const [request] = await receiver.waitForMessages(1);
    const body = request?.body as { text: string; blocks: unknown[] };
    expect(body.text).toContain(sampleAlertTitle('team'));
    expect(JSON.stringify(body.blocks)).toContain('if you see this, channel team works');
    // The log channel writes its line to stderr, leaving stdout to the results.
    const logLine = JSON.parse(outcome.stderr.trim()) as { msg: string; channel: string };
    expect(logLine).toMatchObject({ msg: sampleAlertTitle('ops-log'), channel: 'ops-log' });
    expect(outcome.stdout + outcome.stderr).not.toContain(SECRET);
  });

  it('reports a refusing channel as failed with its reason and exits 1; only the named one is tried', async () => {
    const before = receiver.requests.length;
    receiver.respondWith(404, 'channel_not_found');
    const outcome = await shelfwatch(['test-alert', 'team', '--config', config]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(/^failed {2}team \(slack\): .*404.*channel_not_found.*\n$/);
    expect(outcome.stderr).toBe('shelfwatch: 1 of 1 channels failed: team\n');
    expect(receiver.requests.length).toBe(before + 1);
    expect(outcome.stdout + outcome.stderr).not.toContain(SECRET);
  });

  it('--json prints only {ok, channels} on stdout, the failure line on stderr', async () => {
    receiver.respondWith(404, 'channel_not_found');
    const outcome = await shelfwatch(['test-alert', '--json', '--config', config]);
    expect(outcome.code).toBe(1);
    expect(JSON.parse(outcome.stdout)).toEqual({
      ok: false,
      channels: [
        { id: 'ops-log', type: 'log', ok: true },
        { id: 'team', type: 'slack', ok: false, reason: expect.stringContaining('404') },
      ],
    });
    expect(outcome.stderr).toContain('shelfwatch: 1 of 2 channels failed: team\n');
    expect(outcome.stdout + outcome.stderr).not.toContain(SECRET);
  });

  it('exits 2 for a channel the config does not have', async () => {
    const outcome = await shelfwatch(['test-alert', 'nope', '--config', config]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe('shelfwatch: no channel "nope" in the config (known: ops-log, team)\n');
  });
});
