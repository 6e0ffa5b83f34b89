import type { Command } from 'commander';
import { readinessChecks, startOpsServer } from '../app/http-server.ts';
import { probeWrite } from '../app/redis-full.ts';
import { logPlans, RunReporter } from '../app/run-report.ts';
import { Runtime } from '../app/runtime.ts';
import { shardsReadiness } from '../app/shard-health.ts';
import { type StartedWorkers, startWorkers } from '../app/start.ts';
import { checkRedis } from '../app/startup-checks.ts';
import { stateReadiness } from '../app/state-watch.ts';
import { insecureSettings } from '../config/insecure-settings.ts';
import { secretsIn } from '../config-kit/secret.ts';
import { createLogger, type Logger } from '../ops/logger.ts';
import { Shutdown } from '../ops/shutdown.ts';
import { readyProbeKey } from '../poll/keys.ts';
import { redact } from '../util/redact.ts';
import { summaryOf } from './commands.ts';
import { ConsoleTokenMissing, generatedTokenLine, serveConsole } from './console-token.ts';
import { CliError } from './errors.ts';
import { type CliIo, outputStream } from './io.ts';
import { startLiveRun } from './live-run.ts';
import { CONFIG_OPTION_HELP, loadConfigFrom, loadConfigOrThrow } from './load-config.ts';
import { describeRedisError, RedisConnectTimeout } from './redis-errors.ts';
import { colourWanted, logLevelOption } from './terminal.ts';
import { VERSION } from './version.ts';

/**
 * Connects, or fails with one line naming the cause. The connection's first error ends the wait at
 * once: a refused port or an unknown host is not going to answer in five seconds either.
 */
export async function connectRuntime(runtime: Runtime, timeoutMs = 5_000): Promise<void> {
  let onError: ((error: Error) => void) | undefined;
  const firstError = new Promise<never>((_, reject) => {
    onError = reject;
    runtime.redis.once('error', onError);
  });
  try {
    await Promise.race([
      runtime.connect(timeoutMs).catch((error: unknown) => {
        throw runtime.redis.status === 'ready' ? error : new RedisConnectTimeout(String(error));
      }),
      firstError,
    ]);
  } catch (cause) {
    await runtime.close().catch(() => {});
    const url = runtime.config.redis.url;
    throw new CliError(
      `cannot reach Redis at ${redact(url)}: ${describeRedisError(cause, url)} — start one or set redis.url / REDIS_URL`,
      { cause },
    );
  } finally {
    if (onError !== undefined) runtime.redis.off('error', onError);
  }
}

/** Redis too old stops start-up; a risky eviction policy only warns. */
async function checkRedisOrThrow(runtime: Runtime, logger: Logger): Promise<void> {
  const report = await checkRedis(runtime.redis);
  for (const problem of report.problems) logger[problem.level]({ redis: report.found }, problem.message);
  if (!report.ok) {
    await runtime.close();
    const errors = report.problems.filter((p) => p.level === 'error').map((p) => p.message);
    throw new CliError(errors.join('; '));
  }
}

export function registerRunCommand(program: Command, io: CliIo): void {
  program
    .command('run')
    .description(summaryOf('run'))
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .addOption(logLevelOption('info', io.env))
    .addHelpText(
      'after',
      `
Examples:
  $ shelfwatch run --config shelfwatch.yaml
  $ PUBLISHING_API_BASE_URL=http://127.0.0.1:4010 PUBLISHING_API_KEY=sk_demo_studio \\
    SHELFWATCH_ASINS=B0CJ4XQ2ZK shelfwatch run

Run as many processes as you like on one Redis: they share the request budget and one of them
at a time reconciles the poll schedulers.`,
    )
    .action(async (options: { config?: string; logLevel: string }) => {
      const config = loadConfigOrThrow(io, options.config);
      const source = loadConfigFrom(io, options.config).source;
      // A piped config (--config -) has no file to watch.
      const file = source?.kind === 'file' && options.config !== '-' ? source.path : undefined;
      const secrets = secretsIn(config);
      const tty = io.stdout.isTTY === true;
      const colorize = colourWanted(io.env, tty);
      // FORCE_COLOR asks for the coloured, human form even through a pipe (`| less -R`).
      const pretty = tty || (colorize && io.env.FORCE_COLOR !== undefined);
      const logger = createLogger({
        level: options.logLevel,
        pretty,
        colorize,
        destination: outputStream(io.stdout),
        secrets,
      });
      for (const insecure of insecureSettings(config)) logger.warn({ path: insecure.path }, insecure.message);
      const runtime = new Runtime({ config, logger, version: VERSION, clusterPatience: 'worker' });
      await connectRuntime(runtime);
      await checkRedisOrThrow(runtime, logger);
      const shutdown = new Shutdown(logger);
      shutdown.add('runtime', () => runtime.close());
      let started: StartedWorkers | undefined;
      // The revision in force (or the file, stored as one) is applied before the workers start.
      const liveRun = await startLiveRun({ runtime, logger, shutdown, env: io.env, file, secrets });
      const server = await startOpsServer({
        host: config.server.host,
        port: config.server.port,
        allowedHosts: config.server.allowedHosts,
        metrics: runtime.metrics,
        readiness: readinessChecks({
          redis: async () => {
            if (runtime.redis.status !== 'ready') throw new Error(`connection ${runtime.redis.status}`);
            // A write, not PING: a full Redis (maxmemory, noeviction) answers PING and refuses writes.
            if (started === undefined) await runtime.redis.ping();
            else await probeWrite(runtime.redis, readyProbeKey(runtime.prefix), started.redisFull);
          },
          workers: () => {
            const running = runtime.workers.filter((w) => w.isRunning() && !w.isPaused()).length;
            if (running === 0 || running < runtime.workers.length) {
              throw new Error(`${running} of ${runtime.workers.length} workers running`);
            }
          },
          // With shards on a Cluster, a node that is down holds up only its shards: named here.
          shards: () => shardsReadiness(runtime, 800),
          // Not ready for a minute after Redis lost the state (state-watch.ts).
          state: () => stateReadiness(runtime),
          // The revision this process runs; failing while the newest cannot be applied here.
          config: () => liveRun.live.readiness(),
          // Polling stops silently when the schedulers vanish from Redis (FLUSHALL): not ready then.
          schedules: () => {
            if (started === undefined) throw new Error('not reconciled yet');
            return started.schedules.ready();
          },
        }),
      }).catch((cause: unknown) => {
        // Several workers on one host would clash on the port: the worker still runs, and the
        // missing endpoint is said loudly (set server.port per process, or 0 for any free port).
        logger.error(
          { host: config.server.host, port: config.server.port, err: cause },
          'health and metrics server not started; set server.port',
        );
        return undefined;
      });
      if (server !== undefined) {
        logger.info({ url: server.url }, 'health and metrics listening');
        shutdown.add('ops server', () => server.close());
      }
      await serveConsoleIfEnabled(runtime, shutdown, logger, io);
      shutdown.onSignals();
      const plans = await runtime.plans();
      logPlans(logger, plans);
      const reporter = new RunReporter({
        logger,
        targets: new Map([...plans].map(([ws, plan]) => [ws, plan.rows.length])),
        monthUse: async () => {
          const use = new Map<string, { used: number; limit: number }>();
          for (const ws of runtime.config.workspaces)
            use.set(ws.id, { used: (await runtime.budget.usage(ws.id)).monthUsed, limit: ws.plan.perMonth });
          return use;
        },
      });
      shutdown.add('run report', () => reporter.stop());
      started = await startWorkers(runtime, shutdown, {
        onWorkers: (w) => reporter.attach(w.poll, w.deliver),
      });
      await liveRun.follow();
      logger.info(
        {
          workspaces: runtime.config.workspaces.length,
          targets: runtime.registry.all().length,
          revision: runtime.revision,
        },
        'shelfwatch running; SIGTERM or Ctrl-C stops it',
      );
    });
}

/**
 * `console.enabled`: `run` serves the console too, with the token `console` would use (a generated
 * one printed once on stdout, never logged, and only when stdout is a terminal). A console that cannot listen (the port taken by another
 * `run` on this host) is logged and the worker runs on, as with the health server.
 */
async function serveConsoleIfEnabled(
  runtime: Runtime,
  shutdown: Shutdown,
  logger: Logger,
  io: CliIo,
): Promise<void> {
  const settings = runtime.config.console;
  if (!settings.enabled) return;
  const running = await serveConsole(runtime, shutdown, {
    host: settings.host,
    port: settings.port,
    env: io.env,
    mayGenerate: io.stdout.isTTY === true,
  }).catch((cause: unknown) => {
    if (cause instanceof CliError) throw cause;
    if (cause instanceof ConsoleTokenMissing) {
      logger.error(cause.message);
      return undefined;
    }
    logger.error(
      { host: settings.host, port: settings.port, err: cause },
      'console not started; set console.port (0: any free port)',
    );
    return undefined;
  });
  if (running === undefined) return;
  logger.info({ url: running.url }, 'console listening');
  if (running.generatedToken !== undefined) io.stdout.write(generatedTokenLine(running.generatedToken));
}
