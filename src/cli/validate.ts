import type { Command } from 'commander';
import { linksNotice } from '../config/console.ts';
import { insecureSettings } from '../config/insecure-settings.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { summaryOf } from './commands.ts';
import { CliError, usageError } from './errors.ts';
import { printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigFrom, loadConfigOrThrow } from './load-config.ts';

/**
 * `--online`: every book and campaign asked of the API once; unknown ones are problems (exit 2).
 * The runtime (Redis, BullMQ, the API client) is loaded only here: plain `validate` stays quick.
 */
async function validateOnline(config: ShelfwatchConfig, io: CliIo): Promise<void> {
  const [{ Runtime }, { silentLogger }, { connectRuntime }, { checkOnline, onlineRequests }, { VERSION }] =
    await Promise.all([
      import('../app/runtime.ts'),
      import('../ops/logger.ts'),
      import('./run.ts'),
      import('./validate-online.ts'),
      import('./version.ts'),
    ]);
  io.stdout.write(
    `validate --online: ${plural(onlineRequests(config), 'request')} from the workspaces' budgets\n`,
  );
  const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
  await connectRuntime(runtime);
  try {
    const problems = await checkOnline(config, (ws) => runtime.interactiveClient(ws)).catch(
      (error: unknown) => {
        throw new CliError(`validate --online: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      },
    );
    if (problems.length > 0) {
      for (const p of problems) io.stderr.write(`shelfwatch: ${p.path}: ${p.message}\n`);
      throw usageError(`${plural(problems.length, 'problem')} found online`);
    }
    io.stdout.write('online: every book and campaign exists\n');
  } finally {
    await runtime.close();
  }
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Poll targets the config asks for: a book and a keywords target per book and marketplace, one
 * reviews target per campaign, one sales target per marketplace (as src/poll/targets.ts names them).
 */
export function countTargets(config: ShelfwatchConfig): number {
  let targets = 0;
  for (const workspace of config.workspaces) {
    for (const book of workspace.books) targets += 2 * book.marketplaces.length;
    targets += workspace.campaigns.length;
    if (workspace.sales !== false) targets += workspace.sales.marketplaces.length;
  }
  return targets;
}

export function summarize(config: ShelfwatchConfig): string {
  return [
    plural(config.workspaces.length, 'workspace'),
    plural(countTargets(config), 'target'),
    plural(config.channels.length, 'channel'),
  ].join(', ');
}

export function registerValidateCommand(program: Command, io: CliIo): void {
  program
    .command('validate')
    .description(summaryOf('validate'))
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--json', 'print {ok, source, summary | problems} as JSON')
    .option(
      '--online',
      "also ask the API for each book and campaign (one request each, from the workspace's budget)",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ shelfwatch validate --config shelfwatch.yaml
  $ SHELFWATCH_CONFIG=/etc/shelfwatch.yaml shelfwatch validate
  $ PUBLISHING_API_BASE_URL=https://api.example.com PUBLISHING_API_KEY=sk-… \\
      SHELFWATCH_ASINS=B0CJ4XQ2ZK,B0CJ4XQ2ZK:UK shelfwatch validate

Each problem is one line: path: what was expected, what was found (what to do).
With --json: {"ok": true, "source", "summary": {workspaces, targets, channels}} or
{"ok": false, "source", "problems": [{path, message, hint?}]} (exit 2).`,
    )
    .action(async (options: { config?: string; json?: boolean; online?: boolean }) => {
      let config: ShelfwatchConfig;
      let source = '';
      if (options.json === true) {
        const result = loadConfigFrom(io, options.config);
        if (!result.ok) {
          printJson({ ok: false, source: result.where, problems: result.problems }, io.stdout);
          throw usageError(`${result.where}: ${result.problems.length} problem(s), listed in the JSON`);
        }
        config = result.config;
        source = result.where;
      } else config = loadConfigOrThrow(io, options.config);
      // Valid, but only because a setting opted out of TLS: said on stderr, the exit stays 0.
      for (const insecure of insecureSettings(config)) {
        io.stderr.write(`shelfwatch: warning: ${insecure.path}: ${insecure.message}\n`);
      }
      const links = linksNotice(config.console);
      if (links !== undefined) io.stderr.write(`shelfwatch: note: ${links.path}: ${links.message}\n`);
      if (options.json !== true) {
        io.stdout.write(`config OK: ${summarize(config)}\n`);
        if (options.online === true) await validateOnline(config, io);
        return;
      }
      const summary = {
        workspaces: config.workspaces.length,
        targets: countTargets(config),
        channels: config.channels.length,
      };
      printJson({ ok: true, source, summary }, io.stdout);
    });
}
