import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import { startWorkers } from '../app/start.ts';
import { createLogger } from '../ops/logger.ts';
import { Shutdown } from '../ops/shutdown.ts';
import { CliError } from './errors.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { VERSION } from './version.ts';

/** `redis://:secret@host:6379` → `redis://host:6379`: a Redis password never reaches a message. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export async function connectRuntime(runtime: Runtime): Promise<void> {
  try {
    await runtime.connect();
  } catch (cause) {
    await runtime.close().catch(() => {});
    throw new CliError(
      `cannot reach Redis at ${redactUrl(runtime.config.redis.url)}: ${cause instanceof Error ? cause.message : String(cause)} — start one or set redis.url / REDIS_URL`,
      { cause },
    );
  }
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run the reconciler and the poll and delivery workers until SIGTERM/SIGINT')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--log-level <level>', 'pino log level', 'info')
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
      const config = loadConfigOrThrow({
        env: process.env,
        ...(options.config === undefined ? {} : { configPath: options.config }),
      });
      const logger = createLogger({ level: options.logLevel, pretty: process.stdout.isTTY === true });
      const runtime = new Runtime({ config, logger, version: VERSION });
      await connectRuntime(runtime);
      const shutdown = new Shutdown(logger);
      shutdown.add('runtime', () => runtime.close());
      shutdown.onSignals();
      await startWorkers(runtime, shutdown);
      logger.info(
        { workspaces: config.workspaces.length, targets: runtime.registry.all().length },
        'shelfwatch running; SIGTERM or Ctrl-C stops it',
      );
    });
}
