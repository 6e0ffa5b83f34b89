/**
 * The chaos run: three `shelfwatch run` processes on a restartable Redis, against the simulator,
 * while workers are SIGKILLed, Redis restarts, the API fails in every way it can, Slack refuses
 * and the mail server goes away. Afterwards every scripted change must have been alerted on every
 * healthy channel, nothing invented, duplicates only in the documented window, the plan's minute
 * limit never exceeded, queues drained, dead letters only for the channel that never worked.
 * `CHAOS_SEED=N npm run test:chaos` replays a schedule; the figures go to .artifacts/chaos/, and
 * `npm run docs:reliability` copies them into docs/reliability.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { expect, it } from 'vitest';
import { createRedisConnection } from '../../src/app/redis-connection.ts';
import { ShardMap } from '../../src/config/shards.ts';
import type { DeliverQueueData } from '../../src/deliver/enqueue.ts';
import { DELIVER_QUEUE, POLL_QUEUE } from '../../src/jobs/queues.ts';
import type { PollJobData } from '../../src/poll/processor.ts';
import { parsePlan, SimControlClient, startSimulator } from '../../src/sim/index.ts';
import { RedisSnapshotStore } from '../../src/snapshot/store.ts';
import { type ReceivedRequest, startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { judgeRun } from './checks.ts';
import {
  BASELINE_DEADLINE_MS,
  EVENTS_CUTOFF_MS,
  SETTLE_DEADLINE_MS,
  STARTUP_DEADLINE_MS,
  STOP_DEADLINE_MS,
} from './deadlines.ts';
import {
  analyseChannel,
  type CapturedEmail,
  emailDeliveries,
  logDeliveries,
  slackDeliveries,
} from './deliveries.ts';
import { busiestWindowRequests, explainGroups, loopLagMonitor } from './diagnose.ts';
import { deliverState, groupLeftovers, redisSecretHits } from './inspect.ts';
import { type ChaosRedis, RestartableRedis } from './redis-aof.ts';
import { ChaosCluster } from './redis-cluster.ts';
import { renderFigures, saveFigures } from './report.ts';
import { ChaosRng, chaosSeed, chaosShards, sleep } from './rng.ts';
import {
  configYaml,
  type ExpectedAlert,
  pickSubjects,
  pinBaselines,
  pollTargets,
  scriptedEvents,
  simStart,
  WORKSPACE,
} from './scenario.ts';
import { settle } from './settle.ts';
import {
  type ChaosTargets,
  ConfirmationKiller,
  runApiFaults,
  runEvents,
  runKills,
  runRedisRestart,
  runSlackOutage,
  runSmtpOutage,
  type SlackMode,
} from './timeline.ts';
import { PollWatchdog } from './watchdog.ts';
import { WorkerPool } from './worker-pool.ts';

const seed = chaosSeed(process.env);
const shards = chaosShards(process.env);
/**
 * With 3 shards the workspace is pinned to shard 1, so each of its alerts crosses masters: its
 * polls, budget, snapshots, delivery queue and groups on one, the silences, channel state and
 * alert log of the home shard on another.
 */
const WORKSPACE_SHARD = 1;
const where = shards === 1 ? '' : `, ${shards} shards on a ${shards}-master Redis Cluster`;
const PER_MINUTE = 60;
const PLAN = `custom:${PER_MINUTE}:5000000`;
const CHANNELS = ['slack', 'email', 'log', 'dead'];

it(`chaos run, seed ${seed}${where}: every change alerted once, nothing invented, nothing lost, plan kept`, async () => {
  const again = shards === 1 ? '' : `CHAOS_SHARDS=${shards} `;
  console.log(`chaos seed: ${seed}${where} (${again}CHAOS_SEED=${seed} npm run test:chaos)`);
  const startedAt = Date.now();
  const rng = new ChaosRng(seed);
  const prefix = `{chaos-${seed}}`;
  const shardMap = new ShardMap(
    prefix,
    shards === 1 ? undefined : { count: shards, pin: { [WORKSPACE_SHARD]: [WORKSPACE] } },
  );
  const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-chaos-'));
  const secrets = {
    apiKey: `sk_chaos_${randomBytes(12).toString('hex')}`,
    slack: randomBytes(12).toString('hex'),
    dead: randomBytes(12).toString('hex'),
    smtp: `pw-${randomBytes(9).toString('hex')}`,
  };
  const log = (line: string) => {
    const stamped = `+${((Date.now() - startedAt) / 1000).toFixed(1)}s ${line}`;
    console.log(stamped); // as it happens, so a run that hangs still shows how far it got
  };

  // On a Cluster, the master that restarts is the workspace's (its budget, snapshots, groups).
  const redis: ChaosRedis =
    shards === 1
      ? await RestartableRedis.create()
      : await ChaosCluster.create(shards, `${shardMap.of(WORKSPACE)}:restart`);
  if (redis instanceof ChaosCluster)
    log(
      `${shards}-master Cluster up; the workspace's master (:${redis.restartedPort}) is the one that restarts`,
    );
  const sim = await startSimulator({
    seed,
    books: 6,
    campaigns: 2,
    startAt: new Date(simStart(Date.now())),
    keys: [{ key: secrets.apiKey, workspace: WORKSPACE, plan: parsePlan(PLAN) }],
  });
  const admin = new SimControlClient(sim);
  let slackMode: SlackMode = 'ok';
  let confirmationKiller: ConfirmationKiller | undefined;
  const slackAnswers: { request: ReceivedRequest; status: number }[] = [];
  const slack = await startHttpReceiver(`/services/TCHAOS/BCHAOS/${secrets.slack}`);
  slack.respondWith(async (request) => {
    const status = slackMode === 'ok' ? 200 : slackMode === '500' ? 500 : 429;
    slackAnswers.push({ request, status });
    if (status === 429) return { status, body: 'rate_limited', headers: { 'Retry-After': '2' } };
    if (status === 200) await confirmationKiller?.maybeKill();
    return { status, body: status === 200 ? 'ok' : 'internal_error' };
  }, 1e9);
  const dead = await startHttpReceiver(`/services/TDEAD/BDEAD/${secrets.dead}`);
  dead.respondWith(404, 'channel_not_found', {}, 1e9);
  const smtp = await startSmtpReceiver({ auth: { user: 'chaos', pass: secrets.smtp } });
  const lag = loopLagMonitor();
  const emails: CapturedEmail[] = [];
  const stamper = setInterval(() => {
    for (const message of smtp.messages.slice(emails.length))
      emails.push({ at: Date.now(), mail: message.mail });
  }, 50);

  const subjects = pickSubjects(await admin.world());
  const configPath = join(dir, 'shelfwatch.yaml');
  writeFileSync(
    configPath,
    configYaml({
      redisUrl: redis.url,
      prefix,
      simUrl: sim.url,
      plan: PLAN,
      s: subjects,
      ...(shards === 1 ? {} : { shards: { count: shards, workspaceShard: WORKSPACE_SHARD } }),
    }),
  );
  const workers = new WorkerPool({
    configPath,
    logDir: dir,
    slots: 3,
    env: {
      CHAOS_API_KEY: secrets.apiKey,
      CHAOS_SLACK_URL: slack.url,
      CHAOS_DEAD_URL: dead.url,
      CHAOS_SMTP_URL: smtp.urlWithAuth('chaos', secrets.smtp),
    },
  });
  // If vitest gives up on the test (timeout), its process exits: take the workers and Redis along.
  const onExit = () => {
    workers.killAllNow();
    redis.killNow();
  };
  process.once('exit', onExit);
  // The product's own connection: a Cluster client on a Cluster, as patient as the workers'.
  const conn = createRedisConnection({ url: redis.url, cluster: shards > 1 }, 'worker');
  conn.on('error', () => {}); // Redis restarts on purpose; the client reconnects
  const store = new RedisSnapshotStore({ redis: conn, prefix: shards === 1 ? prefix : shardMap });
  // Every shard's queues (the channel-disabled notice, of no workspace, may sit on another shard).
  const pollQueues = shardMap.prefixes.map(
    (p) => new Queue<PollJobData>(POLL_QUEUE, { connection: conn, prefix: p }),
  );
  const deliverQueues = shardMap.prefixes.map(
    (p) => new Queue<DeliverQueueData>(DELIVER_QUEUE, { connection: conn, prefix: p }),
  );
  const pollQueue = pollQueues[shardMap.shardOf(WORKSPACE)] as Queue<PollJobData>;
  const deliverQueue = deliverQueues[shardMap.shardOf(WORKSPACE)] as Queue<DeliverQueueData>;
  for (const queue of [...pollQueues, ...deliverQueues] as Queue[]) queue.on('error', () => {});
  let passed = false;
  try {
    await pinBaselines(admin, subjects);
    workers.startAll();
    const targets = pollTargets(subjects);
    // Start-up is measured (the figures), not judged here: the baselines' time runs from the first
    // worker running, since on a loaded machine a worker takes 20-40 s to start instead of 2.4 s.
    const spawnedAt = Date.now();
    let baselineDeadline: number | undefined;
    for (;;) {
      const have = await Promise.all(targets.map((ref) => store.get({ workspace: WORKSPACE, ...ref })));
      if (have.every((s) => s !== undefined)) break;
      if (baselineDeadline === undefined && workers.startupTimes().length > 0)
        baselineDeadline = Date.now() + BASELINE_DEADLINE_MS;
      if (Date.now() > (baselineDeadline ?? spawnedAt + STARTUP_DEADLINE_MS)) {
        const why = baselineDeadline === undefined ? 'no worker running' : 'no baseline for every target';
        throw new Error(`${why}:\n${workers.logLines().slice(-40).join('\n')}`);
      }
      await sleep(500);
    }
    log('baselines stored for all 6 targets; chaos starts');
    const watchdog = new PollWatchdog(store, pollQueue, WORKSPACE, targets, 30_000);
    watchdog.start(2_000);

    // --- chaos ---
    const chaosStart = Date.now();
    const t: ChaosTargets = {
      rng,
      admin,
      workers,
      redis,
      smtp,
      setSlackMode: (m) => {
        slackMode = m;
      },
      slackRefused: () => slackAnswers.filter((a) => a.status !== 200).length,
      log,
    };
    const events = scriptedEvents(subjects);
    const killer = new ConfirmationKiller(t, 2);
    confirmationKiller = killer;
    const ctx = { admin, store, s: subjects, reviewIds: new Map<string, string>() };
    const [records, , , smtpDownMs] = await Promise.all([
      runEvents(t, ctx, events, startedAt + EVENTS_CUTOFF_MS),
      runKills(t, rng.int(6, 9), 5_000, 95_000),
      runApiFaults(t, 95_000),
      runSmtpOutage(t),
      runSlackOutage(t),
      runRedisRestart(t),
    ]);
    confirmationKiller = undefined;
    await admin.clearFaults();
    slackMode = 'ok';
    for (let slot = 0; slot < workers.slots; slot += 1) workers.start(slot);
    const chaosMs = Date.now() - chaosStart;
    log('chaos over: faults cleared, every worker running');

    // --- settle: until every alert is through and nothing is pending ---
    // Only applied events can be alerted: one the run had no time for fails it as "not applied"
    // (judgeRun), and the settle does not wait out its deadline for an alert that cannot come.
    const applied = new Set(records.filter((r) => r.appliedAt !== null).map((r) => r.id));
    const expected: ExpectedAlert[] = events.flatMap((e) =>
      e.expect === undefined || !applied.has(e.id) ? [] : [{ ...e.expect, event: e.id }],
    );
    const chaos = { kills: workers.kills.map((k) => k.at), outages: redis.outages };
    const reports = () => [
      analyseChannel('slack', slackDeliveries(slackAnswers), expected, chaos),
      analyseChannel('email', emailDeliveries(emails), expected, chaos),
      analyseChannel('log', logDeliveries(workers.logLines()), expected, chaos),
    ];
    const settleStart = Date.now();
    const { waitingFor, pollLeft } = await settle({
      deadlineMs: SETTLE_DEADLINE_MS,
      reports,
      deliverQueues,
      pollQueues,
      groups: () => groupLeftovers(conn, shardMap.prefixes, CHANNELS, [WORKSPACE, '*']),
    });
    await watchdog.stop();
    const settleMs = Date.now() - settleStart;
    log(
      `settled after ${settleMs} ms${waitingFor.length > 0 ? `; still waiting for: ${waitingFor.join('; ')}` : ''}`,
    );
    // Gaps up to a minute follow from kills (a stalled job waits out a 30 s lock and a 30 s check).
    for (const gap of watchdog.gaps.filter((g) => g.gapMs > 60_000))
      log(`poll gap of ${Math.round(gap.gapMs / 1000)} s:\n${gap.evidence.join('\n')}`);

    // --- figures ---
    const exitCodes = await workers.stopAll(STOP_DEADLINE_MS);
    const groups = await groupLeftovers(conn, shardMap.prefixes, CHANNELS, [WORKSPACE, '*']);
    const requests = (await admin.requests()).filter((r) => r.path.startsWith('/v1/'));
    const secretList = [secrets.apiKey, secrets.slack, secrets.dead, secrets.smtp];
    const figures = judgeRun({
      seed,
      startedAt,
      chaosMs,
      settleMs,
      limit: PER_MINUTE,
      requests,
      slackAnswers,
      rawMessages: [
        ...slack.requests.map((r) => r.raw),
        ...dead.requests.map((r) => r.raw),
        ...smtp.messages.map((m) => m.raw.toString('utf8')),
      ],
      mails: smtp.messages.map((m) => m.mail),
      emails,
      logLines: workers.logLines(),
      kills: workers.kills,
      confirmationMoments: killer.moments,
      outages: redis.outages,
      smtpDownMs,
      events: events.length,
      records,
      expected,
      channels: reports(),
      deliver: await deliverState(deliverQueues),
      groups,
      pollLeftovers: pollLeft,
      exitCodes,
      redisSecretKeys: await redisSecretHits(conn, secretList),
      secrets: secretList,
      maxLoopLagMs: lag.maxMs(),
      pollGaps: { maxMs: watchdog.maxGapMs, over30s: watchdog.gaps.length },
      startupMs: workers.startupTimes(),
      crashes: workers.crashes.map(
        (c) =>
          `worker ${c.slot} exited with ${c.code} at +${((c.at - startedAt) / 1000).toFixed(1)}s: ${c.lastLine}`,
      ),
    });
    for (const c of figures.channels)
      for (const d of c.duplicates)
        log(
          `${c.channel} duplicate (${d.inWindow ? 'in window' : 'OUTSIDE window'}): ${d.title}, first ${new Date(d.firstAt).toISOString()}, again ${new Date(d.againAt).toISOString()}`,
        );
    const evidence =
      figures.failures.length === 0
        ? []
        : [
            'evidence:',
            ...(await explainGroups(
              deliverQueue,
              groups.filter((g) => g.channel !== 'dead'),
            )),
            ...(figures.budget.maxPerMinute > PER_MINUTE
              ? ['busiest 60 s of API requests:', ...busiestWindowRequests(requests)]
              : []),
          ];
    const table = renderFigures(figures);
    const kept = figures.failures.length === 0 ? '' : `\n\nworker logs kept in ${dir}`;
    console.log(`${evidence.join('\n')}\n\n${table}${kept}`);
    saveFigures(seed, table, shards);
    expect(figures.failures).toEqual([]);
    passed = true;
  } finally {
    process.off('exit', onExit);
    clearInterval(stamper);
    lag.stop();
    await workers.killAll();
    for (const queue of [...pollQueues, ...deliverQueues] as Queue[]) await queue.close();
    conn.disconnect();
    await admin.close();
    await sim.close();
    await slack.close();
    await dead.close();
    await smtp.stop();
    await redis.dispose();
    // Worker logs are the evidence of a failed run: kept then, removed after a clean one.
    if (passed) rmSync(dir, { recursive: true, force: true });
  }
}); // vitest's timeout: CHAOS_TEST_TIMEOUT_MS (deadlines.ts, vitest.chaos.config.ts)
