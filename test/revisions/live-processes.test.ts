/**
 * Issue 24's "Done when", with real processes: three `shelfwatch run` workers on one private Redis
 * and the simulator take 20 changes in a row (a file edit, `config apply`, and the console's forms
 * posted over HTTP with their CSRF token to the console the first process serves) without a restart; each is in force in every process within 5 s; the new book
 * is polled, the removed campaign's scheduler is gone, the next alert goes through the changed
 * channel; no review alerted twice or lost, no request refused by the plan; the history holds them
 * all; export → apply is no change; rollback works; no secret is in clear in Redis, logs or exports.
 * Figures are printed (and written to .artifacts/live-config.json).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { openRevisionStore } from '../../src/revisions/index.ts';
import { startPrivateRedis } from '../../src/tools/private-redis.ts';
import { startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { tempDir } from '../config/helpers.ts';
import { artifactPath } from '../helpers/artifacts.ts';
import { runCli, writeConfig } from '../helpers/cli.ts';
import { consoleForms } from '../helpers/console-http.ts';
import { reviewAlertIds, startRun } from '../helpers/run-process.ts';
import { startSimFixture } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';

const KEY = `sk_live_${randomBytes(8).toString('hex')}`;
const SEAL = randomBytes(32).toString('base64');
const HOOK_A = `/hook/a${randomBytes(10).toString('hex')}`;
const HOOK_B = `/hook/b${randomBytes(10).toString('hex')}`;
const SIGNING = `whsec_${randomBytes(12).toString('hex')}`;
const CONSOLE_TOKEN = `console-${randomBytes(16).toString('hex')}`;
const releases: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const release of releases.reverse()) await release().catch(() => {});
});

const reviewAlerts = reviewAlertIds;

it('20 changes without a restart reach three processes within 5 s each, losing and doubling nothing', async () => {
  const redis = await startPrivateRedis();
  releases.push(() => redis.stop());
  const fx = await startSimFixture({
    seed: 24,
    books: 4,
    campaigns: 2,
    key: KEY,
    workspace: 'ws',
    plan: 'custom:120:1000000',
  });
  releases.push(() => fx.close());
  const hookA = await startHttpReceiver(HOOK_A);
  const hookB = await startHttpReceiver(HOOK_B);
  releases.push(
    () => hookA.close(),
    () => hookB.close(),
  );
  const [c0, c1] = [fx.campaign(0), fx.campaign(1)];
  const books = [0, 1, 2, 3].map((i) => fx.book(i).asin);
  const env = { SHELFWATCH_CONFIG_KEY: SEAL, SHELFWATCH_CONSOLE_TOKEN: CONSOLE_TOKEN };
  const dir = tempDir();
  const base = {
    redis: { url: redis.url, prefix: '{live}' },
    server: { port: 0 },
    // Each process serves the console too (any free port); the changes 12–16 go through the first's.
    console: { enabled: true, port: 0 },
    workspaces: [
      {
        id: 'ws',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: fx.plan,
        books: [{ asin: books[0] as string, marketplaces: ['US'], keywords: { top: 3 } }],
        campaigns: [{ id: c0.campaign_id }, { id: c1.campaign_id }],
        // A new target's first poll comes within one cadence (at most 5 minutes): short ones here.
        cadence: { reviews: '2s', book: '15s', keywords: '15s' },
      },
    ],
    channels: [
      { id: 'log', type: 'log', groupWait: '0s', groupInterval: '1s' },
      { id: 'hook', type: 'webhook', url: hookA.url, secret: SIGNING, groupWait: '0s', groupInterval: '1s' },
    ],
    rules: [{ id: 'new-review', kind: 'review_new' }],
  };
  type Doc = typeof base;
  const watched = writeConfig(dir, 'shelfwatch.json', base);
  const workers = [0, 1, 2].map(() => startRun(watched, { env }));
  for (const w of workers) releases.push(() => w.kill());
  for (const w of workers)
    await w
      .waitForLine('a worker running', (l) => l.msg.startsWith('shelfwatch running'), 90_000)
      .catch((error: unknown) => {
        throw new Error(
          `${String(error)}\n${w.stderr()}\n${w.lines
            .slice(-5)
            .map((l) => JSON.stringify(l))
            .join('\n')}`,
        );
      });

  const consoleUrl = String(
    (await workers[0]?.waitForLine('the console', (l) => l.msg === 'console listening', 10_000))?.url,
  );
  const storeRedis = new Redis(redis.url);
  releases.push(async () => storeRedis.disconnect());
  const store = openRevisionStore({ redis: storeRedis, prefix: '{live}', env });
  const admin = new Redis(redis.url);
  releases.push(async () => admin.disconnect());
  const pollQueue = new Queue('poll', { connection: admin, prefix: '{live}' });
  releases.push(() => pollQueue.close());
  const schedulerIds = async () => (await pollQueue.getJobSchedulers(0, -1)).map((s) => s.key);

  const delays: number[] = [];
  /** When the store stored `rev` (its meta's time); a file edit counts from the edit instead. */
  const storedAt = async (rev: number) => Date.parse((await store.get(rev)).meta.at);
  /** Waits until every process runs `rev`, and keeps how long after it was stored. */
  const inForceEverywhere = async (rev: number, storedAt: number) => {
    await waitFor(
      `revision ${rev} in force in all three`,
      () =>
        workers.every((w) => w.lines.some((l) => l.msg === 'config revision applied' && l.revision === rev)),
      15_000,
      50,
    );
    const applied = workers.map((w) => {
      const line = w.lines.find((l) => l.msg === 'config revision applied' && l.revision === rev);
      return Number(line?.time) - storedAt;
    });
    delays.push(Math.max(...applied));
  };
  let counter = 0;
  const apply = async (doc: Doc, extra: string[] = []) => {
    counter += 1;
    const file = writeConfig(dir, `change-${counter}.json`, doc);
    const out = await runCli(['config', 'apply', file, ...extra, '--by', `tester-${counter}`], { env });
    expect(out.code, out.stderr + out.stdout).toBe(0);
    const rev = Number(/stored revision (\d+)/.exec(out.stdout)?.[1]);
    await inForceEverywhere(rev, await storedAt(rev));
    return rev;
  };
  const edit = (doc: Doc, change: (ws: Doc['workspaces'][number], doc: Doc) => void): Doc => {
    const copy = structuredClone(doc);
    change(copy.workspaces[0] as Doc['workspaces'][number], copy);
    return copy;
  };
  const reviewSeq = { n: 0 };
  const published: string[] = [];
  const review = async (campaign = c0.campaign_id) => {
    reviewSeq.n += 1;
    const answer = await fx.control.event({
      type: 'review',
      campaign_id: campaign,
      platform: 'amazon',
      rating: 5,
      body: `review number ${reviewSeq.n}`,
      reviewer: `Reader ${reviewSeq.n}`,
    });
    published.push(String(answer.review_id));
    return String(answer.review_id);
  };

  // Revision 1 is the watched file, stored by the first process to start.
  expect(await store.currentRev()).toBe(1);
  // The campaign's first poll stores its baseline silently: a review published before it is not new.
  await waitFor(
    'the campaign polled twice',
    async () =>
      (await fx.control.requests()).filter((r) => `${r.path}?${r.query}`.includes(c0.campaign_id)).length >=
      2,
    60_000,
  );
  const first = await review();
  await waitFor('the first review alerted', () => reviewAlerts(workers).includes(first), 60_000);

  // 1. A file edit: a second book. Every process notices the file; one stores it.
  let doc = edit(base, (ws) =>
    ws.books.push({ asin: books[1] as string, marketplaces: ['US'], keywords: { top: 3 } }),
  );
  const sinceSeq = (await fx.control.requests()).at(-1)?.seq ?? 0;
  const editedAt = Date.now();
  writeFileSync(watched, JSON.stringify(doc, null, 2));
  await waitFor('the file stored as revision 2', async () => (await store.currentRev()) === 2, 10_000);
  await inForceEverywhere(2, editedAt);
  await waitFor(
    'the new book polled',
    async () =>
      (await fx.control.requests(sinceSeq)).some((r) => `${r.path}?${r.query}`.includes(books[1] as string)),
    30_000,
  );

  // 2. Remove a campaign: its scheduler goes.
  doc = edit(doc, (ws) => ws.campaigns.splice(1, 1));
  await apply(doc);
  await waitFor(
    'the campaign scheduler removed',
    async () => !(await schedulerIds()).some((id) => id.includes(c1.campaign_id)),
    5_000,
  );

  // 3. Change a channel: the webhook moves from receiver A to B; the next alert goes to B.
  doc = edit(doc, (_ws, d) => {
    (d.channels[1] as { url: string }).url = hookB.url;
  });
  await apply(doc);
  const aBefore = hookA.requests.length;
  const afterChannel = await review();
  await waitFor('the next alert through the changed channel', () => hookB.requests.length > 0, 30_000);
  await waitFor('that alert logged', () => reviewAlerts(workers).includes(afterChannel), 30_000);
  expect(hookA.requests.length).toBe(aBefore);

  // 4. Change a rule; 5. change a cadence (the scheduler's interval follows).
  doc = edit(doc, (_ws, d) => {
    d.rules = [{ id: 'new-review', kind: 'review_new', lowStarAt: 1 } as never];
  });
  await apply(doc);
  // A cadence due within a second is changed just after that run (app/reconcile-follow-up.ts).
  doc = edit(doc, (ws) => {
    ws.cadence.book = '20m';
  });
  await apply(doc);
  await waitFor(
    'the book cadence at 20 minutes',
    async () =>
      (await pollQueue.getJobSchedulers(0, -1)).some(
        (s) => s.key.includes(books[0] as string) && Number(s.every) === 1_200_000,
      ),
    5_000,
  );
  // 6–10: cadence and book changes through `config apply`, a review published in between.
  for (const minutes of [50, 40, 30, 20, 10]) {
    doc = edit(doc, (ws) => {
      ws.cadence.book = `${minutes}m`;
    });
    await apply(doc);
    await review();
  }
  // 11. Hand the configuration to the console; 12–16: the console's forms, posted over HTTP.
  const released = await runCli(['config', 'release', '--config', watched, '--by', 'tester-release'], {
    env,
  });
  expect(released.code, released.stderr).toBe(0);
  const releasedRev = await store.currentRev();
  await inForceEverywhere(releasedRev, await storedAt(releasedRev));
  const forms = await consoleForms(consoleUrl, CONSOLE_TOKEN);
  const page = '/config/workspaces/ws';
  for (const [index, asin] of [books[2], books[3], undefined, undefined, undefined].entries()) {
    const before = await store.currentRev();
    const posted =
      asin !== undefined
        ? await forms.submit(page, `${page}/books`, { asin, marketplaces: ['US'], mode: 'top', top: '3' })
        : await forms.submit(page, `${page}/cadence`, {
            book: doc.workspaces[0]?.cadence.book ?? '',
            reviews: '2s',
            keywords: `${2 + index}h`,
          });
    expect(posted.status, posted.body.slice(0, 2_000)).toBe(303);
    const rev = Number(/saved=(\d+)/.exec(posted.location ?? '')?.[1]);
    expect(rev).toBe(before + 1);
    await inForceEverywhere(rev, await storedAt(rev));
    await review();
  }
  const consoleDoc = (await store.current())?.config.workspaces[0];
  expect(consoleDoc?.books.map((b) => b.asin)).toEqual(books);
  expect(consoleDoc?.cadence.keywords).toBe(6 * 3_600_000);
  // A file over a console-managed configuration is refused without --take-over (exit 1).
  const takeBack = writeConfig(dir, 'take-back.json', doc);
  const refused = await runCli(['config', 'apply', takeBack], { env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('--take-over');
  // 17–20: taken over by a file again, then more changes.
  await apply(doc, ['--take-over']);
  for (const minutes of [15, 25, 35]) {
    doc = edit(doc, (ws) => {
      ws.cadence.book = `${minutes}m`;
    });
    await apply(doc);
  }
  const last = await review();
  await waitFor('the last review alerted', () => reviewAlerts(workers).includes(last), 60_000);

  // The history: the file, then 20 changes, each with who and what.
  const history = await runCli(['config', 'history', '--json', '--config', watched], { env });
  const metas = JSON.parse(history.stdout) as { rev: number; by: string; via: string; summary: string }[];
  expect(metas.length).toBe(21);
  expect(metas.every((m) => m.by !== '' && m.summary !== '')).toBe(true);
  expect(new Set(metas.map((m) => m.via))).toEqual(new Set(['file', 'cli', 'console']));

  // Export → apply is no change.
  const exported = await runCli(['config', 'export', '--config', watched], { env });
  expect(exported.code).toBe(0);
  const exportFile = join(dir, 'export.yaml');
  writeFileSync(exportFile, exported.stdout);
  const again = await runCli(['config', 'apply', exportFile, '--config', watched], { env });
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toContain('no change');

  // Rollback to revision 2 (two books, both campaigns, receiver A): in force everywhere.
  const rolled = await runCli(['config', 'rollback', '2', '--config', watched], { env });
  expect(rolled.code, rolled.stderr).toBe(0);
  const rollbackRev = await store.currentRev();
  await inForceEverywhere(rollbackRev, await storedAt(rollbackRev));
  expect((await store.current())?.config.workspaces[0]?.books.map((b) => b.asin)).toEqual(books.slice(0, 2));
  await waitFor(
    'the campaign scheduler back',
    async () => (await schedulerIds()).some((id) => id.includes(c1.campaign_id)),
    5_000,
  );

  // Every review alerted exactly once (through the log channel, across the three processes).
  await waitFor(
    'every review alerted',
    () => published.every((id) => reviewAlerts(workers).includes(id)),
    60_000,
  );
  const counts = new Map<string, number>();
  for (const id of reviewAlerts(workers)) counts.set(id, (counts.get(id) ?? 0) + 1);
  expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
  expect(published.filter((id) => counts.get(id) !== 1)).toEqual([]);
  // No request over the plan: the simulator refused none.
  const requests = await fx.control.requests();
  expect(requests.filter((r) => r.status === 429)).toEqual([]);
  // No secret in clear: Redis, every process's output, the export.
  const secrets = [KEY, HOOK_A.slice(7), HOOK_B.slice(7), SIGNING, CONSOLE_TOKEN];
  const texts: string[] = [exported.stdout, history.stdout];
  for (const w of workers) texts.push(JSON.stringify(w.lines), w.stderr());
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const type = await admin.type(key);
      if (type === 'string') texts.push(String(await admin.get(key)));
      else if (type === 'hash') texts.push(JSON.stringify(await admin.hgetall(key)));
      else if (type === 'list') texts.push(JSON.stringify(await admin.lrange(key, 0, -1)));
      else if (type === 'set') texts.push(JSON.stringify(await admin.smembers(key)));
      else if (type === 'zset') texts.push(JSON.stringify(await admin.zrange(key, 0, -1)));
      else if (type === 'stream') texts.push(JSON.stringify(await admin.xrange(key, '-', '+')));
      texts.push(key);
    }
  } while (cursor !== '0');
  const leaks = secrets.filter((secret) => texts.some((text) => text.includes(secret)));
  expect(leaks).toEqual([]);

  const figures = {
    processes: workers.length,
    revisions: metas.length,
    changes: metas.length - 1,
    slowestApplyMs: Math.max(...delays),
    medianApplyMs: [...delays].sort((a, b) => a - b)[Math.floor(delays.length / 2)],
    applyMs: delays,
    consoleChanges: metas.filter((m) => m.via === 'console').length,
    reviewsPublished: published.length,
    alertsLost: published.filter((id) => !counts.has(id)).length,
    alertsDoubled: [...counts.values()].filter((n) => n > 1).length,
    requests: requests.length,
    refusedByPlan: 0,
  };
  console.log(JSON.stringify(figures));
  writeFileSync(artifactPath('live-config.json'), `${JSON.stringify(figures, null, 2)}\n`);
  expect(Math.max(...delays)).toBeLessThanOrEqual(5_000);
  for (const w of workers) expect(await w.stop()).toBe(0);
}, 420_000);
