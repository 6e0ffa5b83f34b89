// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleAlertTitle } from '../../src/deliver/sample-alert.ts';
import {
  DEFAULT_WEBHOOK_PATH,
  type HttpReceiver,
  startHttpReceiver,
} from '../../src/tools/receivers/http.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';

const dir = tempDir();
let receiver: HttpReceiver;
let config: string;

beforeAll(async () => {
  receiver = await startHttpReceiver();
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
    expect(JSON.stringify(body.blocks)).toContain('Test alert from shelfwatch — no action needed');
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

  it('sends the sample through Discord, Teams, a signed webhook, Telegram and ntfy; secrets from the environment', async () => {
    const chat = await startHttpReceiver('/hook/ChatT0kenDoNotLeak42');
    try {
      const file = writeConfig(dir, 'chat.yaml', {
        workspaces: [
          { id: 'ws', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_unused', campaigns: [{ id: 'c' }] },
        ],
        channels: [
          { id: 'launch-discord', type: 'discord', webhookUrl: chat.url, allowAnyHost: true },
          {
            id: 'publisher-teams',
            type: 'teams',
            webhookUrl: `${chat.url}?sig=TeamsSig42`,
            allowAnyHost: true,
          },
          { id: 'automations', type: 'webhook', url: chat.url, secret: '${WEBHOOK_SECRET}' },
          {
            id: 'tg',
            type: 'telegram',
            botToken: '${TELEGRAM_BOT_TOKEN}',
            chatId: '42',
            apiUrl: chat.origin,
          },
          { id: 'phone', type: 'ntfy', serverUrl: chat.origin, topic: '${NTFY_TOPIC}' },
        ],
      });
      const env = {
        WEBHOOK_SECRET: 'whsec_c2lnbmluZy1zZWNyZXQtZm9yLXRlc3Rz',
        TELEGRAM_BOT_TOKEN: '42:TelegramT0kenDoNotLeak42abc',
        NTFY_TOPIC: 'NtfyTopicDoNotLeak42',
      };
      const outcome = await shelfwatch(['test-alert', '--config', file], env);
      expect(outcome.stdout).toBe(
        'ok      launch-discord (discord)\nok      publisher-teams (teams)\nok      automations (webhook)\n' +
          'ok      tg (telegram)\nok      phone (ntfy)\n',
      );
      expect(outcome.code).toBe(0);
      const requests = await chat.waitForMessages(5);
      for (const request of requests) expect(request.raw).toContain('no action needed (channel');
      expect(requests[2]?.headers['webhook-signature']).toMatch(/^v1,/);
      for (const secret of [
        'ChatT0kenDoNotLeak42',
        'TeamsSig42',
        'TelegramT0kenDoNotLeak42',
        'NtfyTopicDoNotLeak42',
      ]) {
        expect(outcome.stdout + outcome.stderr).not.toContain(secret);
      }
    } finally {
      await chat.close();
    }
  });
});
