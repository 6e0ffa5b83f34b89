import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import { secretsIn } from '../config-kit/secret.ts';
import { createLogger } from '../ops/logger.ts';
import { Shutdown } from '../ops/shutdown.ts';
import { summaryOf } from './commands.ts';
import { generatedTokenLine, serveConsole } from './console-token.ts';
import { parseIntegerFlag } from './errors.ts';
import { type CliIo, outputStream } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';

export function registerConsoleCommand(program: Command, io: CliIo): void {
  program
    .command('console')
    .description(summaryOf('console'))
    .option('-c, --config <path>', CONFIG_OPTION_HELP)
    .option('--port <port>', 'port to listen on (default: console.port, 8466)')
    .addHelpText(
      'after',
      `
Examples:
  $ shelfwatch console --config shelfwatch.yaml
  $ SHELFWATCH_CONSOLE_TOKEN=... shelfwatch console --port 9000

Binds console.host (127.0.0.1 unless the config sets another address with allowRemote and a token).
Without console.token or SHELFWATCH_CONSOLE_TOKEN it generates a token and prints it once.`,
    )
    .action(async (options: { config?: string; port?: string }) => {
      const config = loadConfigOrThrow(io, options.config);
      const logger = createLogger({
        level: 'info',
        pretty: io.stdout.isTTY === true,
        colorize: false,
        destination: outputStream(io.stdout),
        secrets: secretsIn(config),
      });
      const port =
        options.port === undefined
          ? config.console.port
          : parseIntegerFlag('--port', options.port, 0, 65_535);
      const runtime = new Runtime({ config, logger, version: VERSION });
      await connectRuntime(runtime);
      const shutdown = new Shutdown(logger);
      shutdown.add('runtime', () => runtime.close());
      const running = await serveConsole(runtime, shutdown, {
        host: config.console.host,
        port,
        env: io.env,
      }).catch(async (error: unknown) => {
        await shutdown.run(5_000);
        throw error;
      });
      shutdown.onSignals();
      io.stdout.write(`shelfwatch console: ${running.url}\n`);
      if (running.generatedToken !== undefined) io.stdout.write(generatedTokenLine(running.generatedToken));
    });
}
