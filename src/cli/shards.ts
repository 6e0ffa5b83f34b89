import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import { shardReachability } from '../app/shard-health.ts';
import { MIGRATE_COMMAND, type MigrationReport, migrateShards, readLayout } from '../app/shard-layout.ts';
import { silentLogger } from '../ops/logger.ts';
import { summaryOf } from './commands.ts';
import { printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';

const EXAMPLES = `
Workspaces spread over shards, one Redis hash tag each (redis.shards in the config; see
docs/scaling.md). 'show' lists each shard, its workspaces and whether its Redis node answers;
'migrate' moves the workspaces whose keys are under another shard than the config's (after a
change of redis.shards.count or pin). Stop every worker before migrating.

Examples:
  $ shelfwatch shards show
  $ ${MIGRATE_COMMAND} --dry-run
  $ ${MIGRATE_COMMAND}`;

async function withRuntime<T>(
  io: CliIo,
  configPath: string | undefined,
  use: (runtime: Runtime) => Promise<T>,
): Promise<T> {
  const config = loadConfigOrThrow(io, configPath);
  const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
  await connectRuntime(runtime);
  try {
    return await use(runtime);
  } finally {
    await runtime.close();
  }
}

export function formatMigration(report: MigrationReport, dryRun: boolean): string {
  if (report.moves.length === 0) return 'every workspace is on its shard: nothing to move\n';
  const lines = report.moves.map((m) => `  ${m.workspace}: ${m.from} → ${m.to}`);
  const head = dryRun
    ? `${report.moves.length} workspace(s) would move:`
    : `moved ${report.moves.length} workspace(s), ${report.keysMoved} keys, ${report.schedulersRemoved} schedulers left their old queue:`;
  return `${head}\n${lines.join('\n')}\n`;
}

export function registerShardsCommand(program: Command, io: CliIo): void {
  const shards = program.command('shards').description(summaryOf('shards')).addHelpText('after', EXAMPLES);
  shards
    .command('show')
    .description('each shard: its prefix, its workspaces, whether its Redis node answers')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--json', 'print as JSON')
    .action(async (options: { config?: string; json?: boolean }) => {
      await withRuntime(io, options.config, async (runtime) => {
        const [reach, stored] = await Promise.all([
          shardReachability(runtime),
          readLayout(runtime.redis, runtime.prefix),
        ]);
        if (options.json === true) return printJson({ stored, shards: reach }, io.stdout);
        const rows = reach.map(
          (s) =>
            `shard ${s.index}  ${s.prefix}  ${s.reachable ? 'answers' : `UNREACHABLE (${s.error})`}  ${s.workspaces.length} workspace(s): ${s.workspaces.join(', ') || '-'}`,
        );
        io.stdout.write(
          `${rows.join('\n')}\nlayout in Redis: ${stored === null ? 'none (one shard, the configured prefix)' : `${stored.count} shard(s)`}\n`,
        );
      });
    });
  shards
    .command('migrate')
    .description('move workspaces whose keys are under another shard than the config says (workers stopped)')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--dry-run', 'say what would move, move nothing')
    .action(async (options: { config?: string; dryRun?: boolean }) => {
      await withRuntime(io, options.config, async (runtime) => {
        const dryRun = options.dryRun === true;
        io.stdout.write(formatMigration(await migrateShards(runtime, dryRun), dryRun));
      });
    });
}
