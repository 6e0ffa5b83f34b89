/**
 * `shelfwatch silence add|list|expire` and `snooze` as child processes, against real Redis and two
 * delivery pipelines on it (two workers): a silence set from the CLI stops matching alerts on both.
 */
import { describe, expect, it } from 'vitest';
import type { Silence } from '../../src/silence/silence.ts';
import type { SilenceView } from '../../src/silence/view.ts';
import { tempDir } from '../config/helpers.ts';
import { CapturingNotifier, makeAlert, settings, startPipeline } from '../deliver/pipeline-harness.ts';
import { stopAfterEach } from '../helpers/cleanup.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';

const dir = tempDir();
const defer = stopAfterEach();

function configFor(name: string, prefix: string, url = redisUrl()): string {
  return writeConfig(dir, `${name}.yaml`, {
    redis: { url, prefix },
    workspaces: [
      {
        id: 'ws',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk_unused',
        books: [{ asin: 'B0CJ4XQ2ZK', author: 'Jane Doe' }],
        campaigns: [{ id: 'c' }],
      },
    ],
    channels: [{ id: 'slack', type: 'log' }],
  });
}

describe.concurrent('silence: bad input is refused with the reason (exit 2), before any connection', () => {
  // Redis is unreachable here: the input is checked first.
  const config = configFor('bad', '{unused}', 'redis://127.0.0.1:9');
  const cases: [string, string[], RegExp][] = [
    ['no matcher', ['--for', '1h', '--reason', 'x'], /at least one matcher/],
    [
      'an end before its start',
      ['--asin', 'B0CJ4XQ2ZK', '--start', '2026-12-02T00:00:00Z', '--until', '2026-12-01', '--reason', 'x'],
      /end \(2026-12-01T00:00:00.000Z\) is not after the start/,
    ],
    [
      'an unknown kind',
      ['--kind', 'bsr_worse', '--for', '1h', '--reason', 'x'],
      /unknown alert kind "bsr_worse"/,
    ],
    ['no end', ['--asin', 'B0CJ4XQ2ZK', '--reason', 'x'], /needs an end/],
    ['a malformed ASIN', ['--asin', 'B0CJ4', '--for', '1h', '--reason', 'x'], /--asin expects ASINs/],
    [
      'an author no book has',
      ['--author', 'Jane Do', '--for', '1h', '--reason', 'x'],
      /did you mean "Jane Doe"/,
    ],
    [
      'a bad duration',
      ['--asin', 'B0CJ4XQ2ZK', '--for', 'soon', '--reason', 'x'],
      /--for expects a duration/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(
      what,
      async () => {
        const out = await shelfwatch(['silence', 'add', ...args, '--config', config]);
        expect(out.code).toBe(2);
        expect(out.stderr).toMatch(message);
      },
      CLI_TEST_TIMEOUT_MS,
    );
  }
});

describe('silence from the CLI, two workers', () => {
  it(
    'add stops matching alerts on every worker; list shows them silenced; expire ends it',
    async () => {
      const prefix = testPrefix('cli-silence');
      testRedis(prefix);
      const captures = [new CapturingNotifier('slack'), new CapturingNotifier('slack')];
      const workers = [];
      for (const capture of captures) {
        const started = await startPipeline({
          prefix,
          channels: [capture],
          settings: new Map([['slack', settings({ paceKey: 'slack', groupWaitMs: 100 })]]),
        });
        defer(started.stop);
        workers.push(started);
      }
      const config = configFor('two-workers', prefix);
      const added = await shelfwatch([
        'silence',
        'add',
        '--asin',
        'B0SILENCED',
        '--kind',
        'keyword_rank_drop,bsr_worsened',
        '--for',
        '48h',
        '--reason',
        'launch week',
        '--by',
        'ana',
        '--json',
        '--config',
        config,
      ]);
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      const silence = JSON.parse(added.stdout) as Silence;
      expect(silence.matchers).toEqual({ asin: ['B0SILENCED'], kind: ['keyword_rank_drop', 'bsr_worsened'] });
      expect(silence.endsAt - silence.startsAt).toBe(48 * 3_600_000);

      // Each worker's poll raises alerts: 10 about the silenced book, 10 others, in one group each.
      const book = { asin: 'B0SILENCED', marketplace: 'US' };
      for (const [w, started] of workers.entries()) {
        const muted = Array.from({ length: 5 }, (_, i) =>
          makeAlert(100 * w + i, { fingerprint: `muted-${w}-${i}`, subject: { ...book, keyword: `k${i}` } }),
        );
        const loud = Array.from({ length: 5 }, (_, i) => makeAlert(100 * w + 50 + i));
        await started.send([...muted, ...loud]);
      }
      const delivered = () => captures.flatMap((c) => c.fingerprints());
      await waitFor('10 alerts delivered', async () => delivered().length === 10, 15_000);
      expect(delivered().filter((fp) => fp.startsWith('muted'))).toEqual([]);

      const listed = await shelfwatch(['silence', 'list', '--json', '--config', config]);
      expect(listed.code).toBe(0);
      const views = JSON.parse(listed.stdout) as SilenceView[];
      expect(views.map((v) => [v.id, v.state, v.silenced, v.reason, v.createdBy])).toEqual([
        [silence.id, 'active', 10, 'launch week', 'ana'],
      ]);
      // status shows the silence, what it kept, and the silenced alerts of the last day.
      const status = await shelfwatch(['status', '--config', config]);
      expect(status.stdout).toMatch('silenced in the last 24h: 10 alerts (recorded, not sent)');
      expect(status.stdout).toMatch(
        new RegExp(
          `${silence.id}\\s+active\\s+asin=B0SILENCED kind=keyword_rank_drop,bsr_worsened .* 10\\s+launch week\\s+ana`,
        ),
      );

      const expired = await shelfwatch(['silence', 'expire', silence.id, '--config', config]);
      expect(expired.code).toBe(0);
      expect(expired.stdout).toMatch(`silence ${silence.id} ended at`);
      const all = JSON.parse(
        (await shelfwatch(['silence', 'list', '--all', '--json', '--config', config])).stdout,
      );
      expect((all as SilenceView[]).map((v) => v.state)).toEqual(['expired']);
      const unknown = await shelfwatch(['silence', 'expire', 'nope', '--config', config]);
      expect(unknown.code).toBe(2);
    },
    CLI_TEST_TIMEOUT_MS * 2,
  );

  it(
    'snooze mutes one firing condition until it resolves: its repeats are kept, its resolve and the next episode are sent',
    async () => {
      const prefix = testPrefix('cli-snooze');
      testRedis(prefix);
      const slack = new CapturingNotifier('slack');
      const started = await startPipeline({
        prefix,
        channels: [slack],
        settings: new Map([['slack', settings({ paceKey: 'slack', groupWaitMs: 100 })]]),
      });
      defer(started.stop);
      const config = configFor('snooze', prefix);
      const fire = makeAlert(1, { fingerprint: 'fire-1', episode: 1_000 });
      await started.send([fire]);
      await slack.waitForAlerts(1, 10_000);
      const out = await shelfwatch(['snooze', 'fire-1', '--json', '--config', config]);
      expect(out.stderr).toBe('');
      const snooze = JSON.parse(out.stdout) as Silence;
      expect(snooze.reason).toBe(`snoozed: ${fire.title}`);

      const repeat = makeAlert(1, { fingerprint: 'repeat-1', episode: 1_000 });
      const resolved = makeAlert(1, {
        fingerprint: 'resolved-1',
        episode: 1_000,
        status: 'resolved',
        kind: 'keyword_rank_recovered',
      });
      const nextEpisode = makeAlert(1, { fingerprint: 'fire-2', episode: 5_000 });
      await started.send([repeat, resolved, nextEpisode]);
      await slack.waitForAlerts(3, 10_000);
      expect(slack.fingerprints().sort()).toEqual(['fire-1', 'fire-2', 'resolved-1']);
      expect((await started.runtime.silences.hits()).get(snooze.id)).toBe(1);

      const event = await shelfwatch(['snooze', 'nope', '--config', config]);
      expect(event.code).toBe(2);
      expect(event.stderr).toMatch(/no alert with fingerprint "nope"/);
    },
    CLI_TEST_TIMEOUT_MS * 2,
  );
});
