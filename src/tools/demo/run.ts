/**
 * `shelfwatch demo`: Redis, the simulator, local Slack and SMTP captures and the real workers,
 * then four scripted events, their alerts on both channels, the digest, a summary, and a clean
 * shutdown. Everything acquired is registered with one `Shutdown` as soon as it exists, and the
 * story runs inside try/finally, so the end, the deadline and Ctrl-C all release the same way.
 */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { Runtime } from '../../app/runtime.ts';
import { startWorkers } from '../../app/start.ts';
import { createSmtpPool } from '../../channels/smtp-pool.ts';
import { createLogger } from '../../ops/logger.ts';
import { Shutdown } from '../../ops/shutdown.ts';
import { SimControlClient, startSimulator } from '../../sim/index.ts';
import { acceleratedClock } from '../../util/clock.ts';
import { redact } from '../../util/redact.ts';
import {
  buildDemoConfig,
  DEMO_WORKSPACE,
  EMAIL_CHANNEL,
  POLL_EVERY_REAL_S,
  SLACK_CHANNEL,
} from './config.ts';
import { startDemoConsole, untilStopped } from './console.ts';
import { produceDigest } from './digest.ts';
import { DemoError, DemoStopped } from './errors.ts';
import { observedNotifiers, observePolls } from './observe.ts';
import { type DemoOutput, type Progress, startProgress } from './progress.ts';
import { chooseRedis, type DemoRedis, deletePrefix, demoPrefix, type RedisChoice } from './redis.ts';
import { applyEvent, planScript } from './script.ts';
import { startSlackCapture } from './slack-capture.ts';
import { stopSwitch } from './stop.ts';
import { cleanupLine, formatSummary, missingPart, shownPath } from './summary.ts';
import { DemoTracker } from './tracker.ts';

export interface DemoOptions {
  /** Sim ms per real ms: 60 is a sim hour per real minute. */
  speed: number;
  seed: number;
  redis: RedisChoice;
  /** REDIS_URL as the CLI read it. */
  envRedisUrl: string | undefined;
  keepRedisData: boolean;
  /** The demo folder (mail/, slack/, the log, digest.html); created when missing. */
  outDir: string;
  deadlineMs: number;
  cwd: string;
  version: string;
}

/** A fixed start of the sim clock, so the same seed tells the same story on every run. */
export const SIM_START = '2026-11-10T09:00:00Z';
const BOOKS = 3;
const CAMPAIGNS = 1;
/** Real time between two scripted events: long enough to watch each alert arrive. */
const EVENT_GAP_MS = 1_500;
const CHANNELS = [SLACK_CHANNEL, EMAIL_CHANNEL];
/** Per release: a close that hangs longer is cut short, so Ctrl-C ends promptly. */
const RELEASE_TIMEOUT_MS = 5_000;

/** Runs the demo; returns the exit code (0 done, 130 interrupted). Failures throw `DemoError`. */
export async function runDemo(options: DemoOptions, out: DemoOutput): Promise<number> {
  const startedAt = Date.now();
  const dir = resolve(options.cwd, options.outDir);
  const mailDir = join(dir, 'mail');
  const slackDir = join(dir, 'slack');
  await mkdir(mailDir, { recursive: true });
  await mkdir(slackDir, { recursive: true });
  const logPath = join(dir, 'shelfwatch.log');
  const logStream = createWriteStream(logPath, { flags: 'a' });
  // A log line after the file closed (a late callback) must not crash the demo's last moments.
  logStream.on('error', () => {});
  const logger = createLogger({ level: 'info', destination: logStream });
  const shutdown = new Shutdown(logger);
  shutdown.add('log file', () => new Promise<void>((done) => logStream.end(() => done())));
  const say = (line: string) =>
    out.write(out.isTTY ? `${line}\n` : `${new Date().toISOString().slice(11, 19)}  ${line}\n`);

  const stop = stopSwitch(options.deadlineMs, () => {
    void shutdown.run(RELEASE_TIMEOUT_MS).then(() => process.exit(130));
  });
  const tracker = new DemoTracker();
  let progress: Progress | undefined;
  let redis: DemoRedis | undefined;
  const prefix = demoPrefix();
  let deletedKeys: number | undefined;

  try {
    // 1. Redis.
    redis = await chooseRedis(options.redis, options.envRedisUrl);
    const own = redis.server;
    if (own !== undefined) shutdown.add('private redis-server', () => own.stop());
    else if (!options.keepRedisData) {
      const url = redis.url;
      shutdown.add('demo keys', async () => {
        deletedKeys = await deletePrefix(url, prefix);
      });
    }
    say(`Redis      ${redis.description}; demo keys under ${prefix}`);
    stop.signal.throwIfAborted();

    // 2. The simulator, on the accelerated sim clock the engine shares.
    const sim = await startSimulator({
      port: 0,
      seed: options.seed,
      speed: options.speed,
      startAt: SIM_START,
      books: BOOKS,
      campaigns: CAMPAIGNS,
    });
    shutdown.add('simulator', () => sim.close());
    const control = new SimControlClient(sim);
    shutdown.add('simulator control', () => control.close());
    const world = await control.world(stop.signal);
    const clock = acceleratedClock(sim.clock.now(), options.speed);
    say(
      `Simulator  ${sim.url}: seed ${options.seed}, ${world.books.length} books, ${world.campaigns.length} ARC campaign, ` +
        `sim clock at ${options.speed}× (a sim hour every ${Math.round(3600 / options.speed)} real seconds)`,
    );

    // 3. Local captures standing in for Slack and an SMTP server.
    const slack = await startSlackCapture(slackDir, () => {});
    shutdown.add('slack capture', () => slack.close());
    // Loaded here, not at the top: smtp-server is a dev dependency, and the CLI imports this module
    // for every command, `run` in the production image (no dev dependencies) included.
    const { startMailCapture } = await import('./smtp-capture.ts').catch((cause: unknown) => {
      throw new DemoError(
        'the demo needs the development dependencies (smtp-server): run it from a checkout after `npm ci`',
        { cause },
      );
    });
    const mail = await startMailCapture(mailDir, () => {});
    shutdown.add('smtp capture', () => mail.close());
    say(
      `Captures   Slack webhook ${new URL(slack.url).origin}, SMTP ${new URL(mail.url).host}; files in ${shownPath(dir, options.cwd)}/`,
    );

    // 4. The real engine: config through the real schema, Runtime, poll and delivery workers.
    const config = buildDemoConfig({
      redisUrl: redis.url,
      prefix,
      simUrl: sim.url,
      world,
      slackUrl: slack.url,
      smtpUrl: mail.url,
      speed: options.speed,
    });
    const smtp = createSmtpPool();
    shutdown.add('smtp pool', () => smtp.closeAll());
    const notifiers = observedNotifiers(config.channels, { logger, smtp, clock }, tracker);
    const runtime = new Runtime({ config, logger, version: options.version, clock, notifiers });
    shutdown.add('runtime', () => runtime.close());
    await runtime.connect().catch((cause: unknown) => {
      throw new DemoError(`cannot reach Redis at ${redact(redis?.url ?? '')}: ${String(cause)}`, {
        cause,
      });
    });
    const workers = await startWorkers(runtime, shutdown, { reconcile: false });
    const demoConsole = await startDemoConsole(runtime, shutdown);
    say(`Console    ${demoConsole.url} (token ${demoConsole.token})`);
    // Listening before the first poll is scheduled, so no outcome goes uncounted.
    observePolls(workers.poll, tracker);
    const plan = config.workspaces[0]?.plan ?? { perMinute: 0, perMonth: 0 };
    progress = startProgress(
      out,
      {
        tracker,
        about: [`Files     ${shownPath(dir, options.cwd)}/ (slack/, mail/, shelfwatch.log)`],
        simNow: () => clock.now(),
        budget: async () => {
          const usage = await runtime.budget.usage(DEMO_WORKSPACE);
          return { ...usage, perMinute: plan.perMinute, perMonth: plan.perMonth };
        },
      },
      CHANNELS.length,
    );
    await runtime.reconcile();
    const targets = runtime.registry.all(DEMO_WORKSPACE).map((t) => t.ref.id);
    tracker.note(`workers started: ${targets.length} poll targets, each polled every ${POLL_EVERY_REAL_S} s`);
    tracker.setPhase(
      `first polls: silent baselines of ${targets.length} targets (a first poll never alerts)`,
    );
    await tracker.waitFor(() => tracker.baselinesTaken(targets), stop.signal);
    tracker.note(`baselines stored for all ${targets.length} targets`);

    // 5. Four scripted events, a little apart, each a change against those baselines.
    tracker.scripted = await planScript(runtime.store, world, clock.now());
    for (const [i, event] of tracker.scripted.entries()) {
      if (i > 0) await pause(EVENT_GAP_MS, undefined, { signal: stop.signal });
      await applyEvent(control, event, () => clock.now(), stop.signal);
      tracker.note(`scripted ${event.label}: ${event.description}`);
      tracker.setPhase(`scripted ${i + 1} of ${tracker.scripted.length} events; polls will notice`);
    }
    tracker.setPhase('waiting for the four alerts on Slack and email');
    const delivered = () =>
      tracker.scripted.every(
        (e) =>
          e.alert !== undefined &&
          CHANNELS.every((c) => tracker.deliveredOn(e.alert?.fingerprint ?? '').has(c)),
      );
    await tracker.waitFor(delivered, stop.signal);

    // 6. The digest, then the summary.
    tracker.setPhase('building the daily digest');
    const digest = await produceDigest(runtime, smtp, dir, stop.signal);
    tracker.note(`digest sent to ${EMAIL_CHANNEL} and written to digest.html: ${digest.subject}`);
    tracker.setPhase('done');
    progress.stop();
    out.write(
      formatSummary({
        elapsedMs: Date.now() - startedAt,
        simStartMs: Date.parse(SIM_START),
        simEndMs: clock.now(),
        speed: options.speed,
        events: tracker.scripted,
        slack: slack.messages,
        slackDir,
        mail: mail.messages,
        digest,
        logPath,
        cwd: options.cwd,
      }),
    );
    if (out.isTTY) {
      // In a terminal the console stays up to be looked at; piped (CI, scripts) the demo ends here.
      stop.clearDeadline();
      out.write(
        `\nThe console stays up at ${demoConsole.url} (token ${demoConsole.token}); Ctrl-C stops it.\n`,
      );
      await untilStopped(stop.signal);
    }
    return 0;
  } catch (error) {
    progress?.stop();
    const reason: unknown = stop.signal.aborted ? stop.signal.reason : undefined;
    if (reason instanceof DemoStopped && reason.reason.kind === 'signal') {
      say(`Interrupted (${reason.reason.signal}): shutting everything down…`);
      return 130;
    }
    logger.error({ err: error }, 'demo failed');
    if (reason instanceof DemoStopped) {
      throw new DemoError(
        `the demo did not finish within ${Math.round(options.deadlineMs / 1000)} s; still waiting for ${missingPart(tracker, CHANNELS)} (log: ${shownPath(logPath, options.cwd)})`,
      );
    }
    throw error;
  } finally {
    progress?.stop();
    await shutdown.run(RELEASE_TIMEOUT_MS);
    stop.dispose();
    const cleaned = cleanupLine(redis, prefix, options.keepRedisData, deletedKeys);
    if (cleaned !== undefined) say(cleaned);
  }
}
