import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { gatherStatus, type StatusReport } from '../../src/app/status.ts';
import { DeliveryError } from '../../src/channels/notifier.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { startDeliverWorker } from '../../workers/deliver.ts';
import { tempDir } from '../config/helpers.ts';
import { CapturingNotifier, makeAlert, settings } from '../deliver/pipeline-harness.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { createHarness, parseOrThrow } from '../poll/engine-harness.ts';

const KEY = 'sk_status_test_0123456789';
const WS = 'ws-status';
const prefix = testPrefix('status');
const redis = testRedis(prefix);
const dir = tempDir();
let runtime: Runtime;
let configFile: string;
let asin: string;
let campaignId: string;
let report: StatusReport;
let apiRequests: number;

const fx = useSimulator({ seed: 5, books: 2, key: KEY, workspace: WS, plan: 'custom:1000:1000000' });

beforeAll(async () => {
  const { control, world } = fx;
  asin = world.books[0]?.asin ?? '';
  campaignId = world.campaigns[0]?.campaign_id ?? '';
  const raw = {
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: WS,
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:1000:1000000',
        books: [{ asin, marketplaces: ['US'], keywords: { top: 5 } }],
        campaigns: [{ id: campaignId }],
        sales: false,
      },
    ],
    channels: [
      { id: 'ops', type: 'log' },
      { id: 'team', type: 'log' },
    ],
  };
  configFile = writeConfig(dir, 'status.yaml', raw);
  const config = parseOrThrow(raw);

  // Polls through the engine: the book once (ok), the keywords twice behind a failing proxy (error).
  const harness = createHarness({ sim: fx.sim, redis, prefix, config });
  expect((await harness.poll(`book/${asin}/US`)).status).toBe('ok');
  // Four 500s: the client's quick retry takes two per poll.
  await control.fault({ kind: 'status', status: 500, count: 4, pathPrefix: `/v1/books/${asin}/keywords` });
  expect((await harness.poll(`keywords/${asin}/US`)).status).toBe('error');
  expect((await harness.poll(`keywords/${asin}/US`)).status).toBe('error');
  await harness.close();
  apiRequests = (await control.requestsSince(0)).length;

  // A channel refusing for good: it is disabled and its flush becomes a dead letter.
  const ops = new CapturingNotifier('ops');
  const team = new CapturingNotifier('team');
  team.failWith = () =>
    new DeliveryError('Slack answered 404 channel_not_found', {
      channelId: 'team',
      retryable: false,
      disableChannel: true,
      status: 404,
    });
  runtime = new Runtime({
    config,
    logger: silentLogger(),
    version: 'test',
    clock: fx.sim.clock,
    notifiers: new Map([
      ['ops', ops],
      ['team', team],
    ]),
    channelSettings: new Map([
      ['ops', settings({ paceKey: 'ops' })],
      ['team', settings({ paceKey: 'team' })],
    ]),
    delivery: { attempts: 2, backoffMs: 50, keepMs: 3_600_000 },
  });
  await runtime.connect();
  const stopping = new AbortController();
  const worker = startDeliverWorker({
    connection: runtime.redis,
    prefix,
    concurrency: 2,
    deps: runtime.deliveryDeps,
    clock: runtime.clock,
    shutdownSignal: stopping.signal,
  });
  const deadLettered = new Promise<void>((resolve) => worker.on('failed', () => resolve()));
  await runtime.pollDeps.alerts.enqueue([makeAlert(1, { workspace: WS })]);
  await deadLettered;
  // ops gets the alert and the "team was disabled" alert.
  await ops.waitForAlerts(2, 10_000);
  stopping.abort();
  await worker.close();

  // Schedulers as `run` creates them; no poll worker runs, so their first jobs stay queued.
  await runtime.reconcile();
  report = await gatherStatus(runtime);
});

afterAll(async () => {
  await runtime?.close();
});

describe('gatherStatus', () => {
  it('reports the budget used this minute and month, the projection and no pause', async () => {
    const ws = report.workspaces[0];
    expect(ws?.id).toBe(WS);
    expect(apiRequests).toBe(5); // book 1 + keywords 2 polls × 2 tries
    expect(ws?.minute).toEqual({ used: apiRequests, limit: 1000, left: 1000 - apiRequests });
    expect(ws?.month).toMatchObject({
      used: apiRequests,
      limit: 1_000_000,
      left: 1_000_000 - apiRequests,
      pollCeiling: 900_000,
    });
    const plan = (await runtime.plans()).get(WS);
    expect(plan?.projectedUse).toBeGreaterThan(0);
    expect(ws?.projectedMonthEnd).toBe(apiRequests + (plan?.projectedUse ?? Number.NaN));
    expect(ws?.pause).toBeNull();
  });

  it('reports each target: next poll, last outcome, failures in a row, last error', () => {
    const targets = new Map(report.workspaces[0]?.targets.map((t) => [t.id, t]));
    expect([...targets.keys()].sort()).toEqual([
      `book/${asin}/US`,
      `keywords/${asin}/US`,
      `reviews/${campaignId}`,
    ]);
    const book = targets.get(`book/${asin}/US`);
    expect(book).toMatchObject({ lastOutcome: 'ok', consecutiveFailures: 0, lastError: null });
    // Named by the title its snapshot holds (keywords too: the same book); a campaign by its id.
    const title = fx.world.books[0]?.title;
    expect(book?.name).toBe(title);
    expect(targets.get(`keywords/${asin}/US`)?.name).toBe(title);
    expect(targets.get(`reviews/${campaignId}`)?.name).toBeNull();
    expect(book?.lastPollAtMs).toEqual(expect.any(Number));
    const keywords = targets.get(`keywords/${asin}/US`);
    expect(keywords).toMatchObject({ lastOutcome: 'error', consecutiveFailures: 2 });
    expect(keywords?.lastError).toContain('500');
    expect(targets.get(`reviews/${campaignId}`)).toMatchObject({ lastOutcome: null, lastPollAtMs: null });
    for (const target of targets.values()) {
      expect(target.nextPollAtMs).toEqual(expect.any(Number));
      expect(target.everyMs).toBeGreaterThan(0);
    }
  });

  it('reports the disabled channel, its dead letter and the queue depths', () => {
    expect(report.channels).toEqual([
      { id: 'ops', type: 'log', disabledReason: null, deadLetters: 0 },
      {
        id: 'team',
        type: 'log',
        disabledReason: expect.stringContaining('channel_not_found'),
        deadLetters: 1,
      },
    ]);
    expect(report.deadLetters).toBe(1);
    expect(report.queues.deliver.failed).toBe(1);
    // One first job per scheduler, waiting or (with its offset) delayed.
    expect((report.queues.poll.waiting ?? 0) + (report.queues.poll.delayed ?? 0)).toBe(3);
  });
});

describe('shelfwatch status', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('--json prints the same data', async () => {
    const outcome = await shelfwatch(['status', '--config', configFile, '--json']);
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    const printed = JSON.parse(outcome.stdout) as StatusReport;
    expect(printed.channels).toEqual(report.channels);
    expect(printed.deadLetters).toBe(1);
    expect(printed.queues).toEqual(report.queues);
    const ws = printed.workspaces[0];
    expect(ws?.month.used).toBe(apiRequests);
    expect(ws?.targets.map((t) => [t.id, t.lastOutcome, t.consecutiveFailures, t.nextPollAtMs])).toEqual(
      report.workspaces[0]?.targets.map((t) => [t.id, t.lastOutcome, t.consecutiveFailures, t.nextPollAtMs]),
    );
  });

  it('prints a readable table by default', async () => {
    const outcome = await shelfwatch(['status', '--config', configFile]);
    expect(outcome.code).toBe(0);
    const lines = outcome.stdout.split('\n');
    expect(outcome.stdout).toContain(
      `workspace ${WS} — plan custom: 1,000/min, 1,000,000/month, reserve 10%`,
    );
    expect(outcome.stdout).toMatch(
      new RegExp(
        `this month \\(\\d{4}-\\d{2}\\)\\s+${apiRequests} used, ${(1_000_000 - apiRequests).toLocaleString('en-US')} left`,
      ),
    );
    const keywordsLine = lines.find((line) => line.includes(`keywords/${asin}/US`)) ?? '';
    expect(keywordsLine).toMatch(/\berror\b.*\s2\s.*500/);
    // The title first, the target id after it.
    const title = fx.world.books[0]?.title ?? '?';
    expect(keywordsLine.indexOf(title.slice(0, 20))).toBeGreaterThanOrEqual(0);
    expect(keywordsLine.indexOf(title.slice(0, 20))).toBeLessThan(keywordsLine.indexOf(`keywords/${asin}`));
    expect(lines.find((line) => line.includes(`reviews/${campaignId}`))).toContain('never polled');
    expect(lines.find((line) => line.startsWith('team '))).toMatch(/DISABLED: .*channel_not_found.*\s1$/);
    expect(outcome.stdout).toContain('dead letters: 1 (see "shelfwatch dlq list")');
  });

  it("shows times in the workspaces' zone (UTC here) or in --time-zone, and says which", async () => {
    const utc = await shelfwatch(['status', '--config', configFile]);
    expect(utc.stdout).toMatch(
      /^shelfwatch status at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z \(times in UTC\)\n/,
    );
    const kolkata = await shelfwatch(['status', '--config', configFile, '--time-zone', 'Asia/Kolkata']);
    expect(kolkata.code).toBe(0);
    expect(kolkata.stdout).toMatch(
      /^shelfwatch status at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30 \(times in Asia\/Kolkata\)\n/,
    );
    const keywords = kolkata.stdout.split('\n').find((line) => line.includes(`keywords/${asin}/US`)) ?? '';
    expect(keywords).toMatch(/T\d{2}:\d{2}:\d{2}\+05:30 \(/);
    const json = JSON.parse(
      (await shelfwatch(['status', '--config', configFile, '--json', '--time-zone', 'Asia/Kolkata'])).stdout,
    ) as { timeZone: string };
    expect(json.timeZone).toBe('Asia/Kolkata');
    const wrong = await shelfwatch(['status', '--config', configFile, '--time-zone', 'Mars/Olympus']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain(
      '--time-zone: expected an IANA zone such as Europe/Berlin, got "Mars/Olympus"',
    );
  });

  it('says in one line that Redis cannot be reached, and exits 1', async () => {
    const unreachable = writeConfig(dir, 'no-redis.yaml', {
      redis: { url: 'redis://127.0.0.1:1', prefix },
      workspaces: [{ id: WS, baseUrl: fx.url, apiKey: KEY, campaigns: [{ id: campaignId }] }],
    });
    // Runtime.connect gives up after 5 s; the rest is start-up (slow on a busy machine) and the exit.
    const outcome = await shelfwatch(['status', '--config', unreachable], {}, 40_000);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
    expect(outcome.stderr).toContain('shelfwatch: cannot reach Redis at redis://127.0.0.1:1');
  });

  it('exits 2 for a missing config file and for an unknown flag', async () => {
    const [missing, badFlag] = await Promise.all([
      shelfwatch(['status', '--config', `${dir}/nope.yaml`]),
      shelfwatch(['status', '--jsn']),
    ]);
    expect(missing.code).toBe(2);
    // The config loader's form: one line, then one line per problem.
    expect(missing.stderr).toMatch(/^shelfwatch: .*nope\.yaml: 1 problem\n {2}.*nope\.yaml: .*no such file/);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("unknown option '--jsn'");
  });
});
