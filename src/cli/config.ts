/**
 * `shelfwatch config apply|export|history|diff|rollback|release`: the revisions of the live
 * configuration (revisions/, docs/configuration.md "Live configuration") from the command line.
 * Redis is the one of the applied file, else of `--config`, else REDIS_URL.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { createRedisConnection } from '../app/redis-connection.ts';
import { Runtime } from '../app/runtime.ts';
import { planVerdict } from '../budget/planner.ts';
import { anchorDocument, formatProblems, parseYamlText, readConfigText } from '../config/load.ts';
import { redisSchema, type ShelfwatchConfig } from '../config/schema.ts';
import { interpolate } from '../config-kit/interpolate.ts';
import type { ConfigProblem } from '../config-kit/problems.ts';
import { silentLogger } from '../ops/logger.ts';
import {
  diffText,
  documentYaml,
  openRevisionStore,
  type ProposeResult,
  type RevisionStore,
  UnknownRevisionError,
} from '../revisions/index.ts';
import { redact } from '../util/redact.ts';
import { summaryOf } from './commands.ts';
import { CliError, parseIntegerFlag, usageError } from './errors.ts';
import { cell, formatTable, printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigFrom } from './load-config.ts';
import { VERSION } from './version.ts';

interface Flags {
  config?: string;
  by?: string;
}

const EXAMPLES = `
The configuration lives in Redis as numbered revisions; every running process applies a new one
within seconds, without a restart. Secrets are stored sealed with SHELFWATCH_CONFIG_KEY, or as
\${VAR} references; they show as [secret], and [secret] in an applied file keeps the stored one.

Examples:
  $ shelfwatch config apply shelfwatch.yaml --dry-run   check and show the diff, store nothing
  $ shelfwatch config apply shelfwatch.yaml             store it (exit 1 on a conflict)
  $ shelfwatch config export > shelfwatch.yaml          the revision in force, as YAML
  $ shelfwatch config history
  $ shelfwatch config diff 4 5
  $ shelfwatch config rollback 4                        a new revision equal to 4
  $ shelfwatch config release                           hand a file-managed config to the console`;

type Env = Readonly<Record<string, string | undefined>>;

function redisOf(raw: unknown, io: CliIo, configPath: string | undefined) {
  if (raw !== undefined) {
    const parsed = redisSchema.safeParse(interpolate(raw, io.env).value);
    if (parsed.success) return parsed.data;
    throw usageError(`redis: ${parsed.error.issues[0]?.message ?? 'not a redis section'}`);
  }
  const loaded = loadConfigFrom(io, configPath);
  if (loaded.ok) return loaded.config.redis;
  return redisSchema.parse(io.env.REDIS_URL === undefined ? {} : { url: io.env.REDIS_URL });
}

async function withStore<T>(
  io: CliIo,
  flags: Flags,
  rawRedis: unknown,
  work: (store: RevisionStore, redisSettings: ReturnType<typeof redisOf>) => Promise<T>,
): Promise<T> {
  const settings = redisOf(rawRedis, io, flags.config);
  const redis = createRedisConnection(settings);
  redis.on('error', () => {});
  try {
    await Promise.race([
      redis.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 5 s')), 5_000).unref()),
    ]).catch((cause: unknown) => {
      throw new CliError(`cannot reach Redis at ${redact(settings.url)}: ${String(cause)}`, { cause });
    });
    const store = openRevisionStore({
      redis,
      prefix: settings.prefix,
      env: io.env as Env,
      processRedis: settings,
    });
    return await work(store, settings);
  } finally {
    redis.disconnect();
  }
}

function who(io: CliIo, flags: Flags): string {
  return flags.by ?? `${io.env.USER ?? io.env.LOGNAME ?? 'someone'}@${hostname()}`;
}

function problemsError(where: string, problems: readonly ConfigProblem[]): CliError {
  const lines = formatProblems(problems)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  const count = problems.length;
  return new CliError(`${where}: ${count} problem${count === 1 ? '' : 's'}, nothing stored\n${lines}`, {
    exitCode: 2,
  });
}

/** Problems exit 2 (bad input), a conflict or a refusal exit 1; a stored revision prints its number and diff. */
function report(io: CliIo, where: string, result: ProposeResult): void {
  switch (result.outcome) {
    case 'problems':
      throw problemsError(where, result.problems);
    case 'conflict':
    case 'refused':
      throw new CliError(result.message);
    case 'unchanged':
      io.stdout.write(`no change: revision ${result.meta?.rev ?? 0} already is this configuration\n`);
      return;
    case 'dry-run':
      io.stdout.write(`${diffText(result.changes)}\n(dry run: nothing stored)\n`);
      return;
    case 'stored':
      io.stdout.write(
        `${diffText(result.changes)}\nstored revision ${result.meta.rev} (was ${result.meta.parent}); running processes apply it within 5 s\n`,
      );
  }
}

/** The figures of every workspace whose plan would not fit, from this month's use and learned costs. */
async function overBudget(config: ShelfwatchConfig, settings: ReturnType<typeof redisOf>): Promise<string[]> {
  const runtime = new Runtime({
    config: { ...config, redis: settings },
    logger: silentLogger(),
    version: VERSION,
  });
  try {
    const plans = await runtime.plans();
    return [...plans].filter(([, plan]) => !plan.fits).map(([ws, plan]) => `${ws}: ${planVerdict(plan)}`);
  } finally {
    await runtime.close();
  }
}

export function registerConfigCommand(program: Command, io: CliIo): void {
  const config = program.command('config').description(summaryOf('config')).addHelpText('after', EXAMPLES);
  const common = (command: Command) =>
    command
      .option('-c, --config <file>', `where Redis is: ${CONFIG_OPTION_HELP}`)
      .option('--by <name>', 'who makes the change, for the history (default: $USER@host)');

  common(
    config
      .command('apply <file>')
      .description('check a config file, print its diff against the revision in force and store it')
      .option('--dry-run', 'check and print the diff only')
      .option('--take-over', 'replace a configuration managed in the console')
      .option('--allow-overbudget', "store it even when its plan does not fit the month's budget"),
  ).action(
    async (
      file: string,
      flags: Flags & { dryRun?: boolean; takeOver?: boolean; allowOverbudget?: boolean },
    ) => {
      const path = resolve(io.cwd ?? process.cwd(), file);
      const read = readConfigText(path, file);
      if ('problem' in read) throw problemsError(file, [read.problem]);
      const yaml = parseYamlText(read.text, file);
      if (!yaml.ok) throw problemsError(file, yaml.problems);
      const document = anchorDocument(yaml.value, path);
      const rawRedis = (yaml.value as Record<string, unknown>).redis;
      await withStore(io, flags, rawRedis, async (store, settings) => {
        const basedOn = await store.currentRev();
        const options = {
          basedOn,
          by: who(io, flags),
          via: 'cli' as const,
          from: path,
          fileText: read.text,
          ...(flags.takeOver === true ? { takeOver: true } : {}),
        };
        const preview = await store.propose(document, { ...options, dryRun: true });
        if (preview.outcome !== 'dry-run') return report(io, file, preview);
        if (preview.changes.length > 0 && flags.allowOverbudget !== true) {
          const over = await overBudget(preview.config, settings);
          if (over.length > 0)
            throw new CliError(
              `${file}: nothing stored, its plan does not fit the budget (--allow-overbudget stores it anyway)\n${over.map((line) => `  ${line}`).join('\n')}`,
            );
        }
        if (flags.dryRun === true) return report(io, file, preview);
        report(io, file, await store.propose(document, options));
      });
    },
  );

  common(
    config.command('export').description('print the revision in force as YAML (secrets as [secret])'),
  ).action(async (flags: Flags) => {
    await withStore(io, flags, undefined, async (store) => {
      const rev = await store.currentRev();
      if (rev === 0)
        throw new CliError(
          'no configuration revision is stored yet: `shelfwatch config apply FILE` stores one',
        );
      const { meta, document } = await store.get(rev);
      io.stdout.write(
        `# shelfwatch configuration, revision ${meta.rev} (${meta.at}, ${meta.by})\n${documentYaml(document)}`,
      );
    });
  });

  common(
    config
      .command('history')
      .description('list the revisions: number, time, who, from where, what changed')
      .option('--json', 'as JSON'),
  ).action(async (flags: Flags & { json?: boolean }) => {
    await withStore(io, flags, undefined, async (store) => {
      const history = await store.history();
      if (flags.json === true) return printJson(history, io.stdout);
      if (history.length === 0) return void io.stdout.write('no revisions stored yet\n');
      const rows = history.map((meta) => [
        String(meta.rev),
        meta.at.slice(0, 19).replace('T', ' '),
        cell(meta.by, 30),
        meta.via,
        cell(meta.from, 40),
        cell(meta.summary, 80),
      ]);
      io.stdout.write(`${formatTable(['rev', 'at (UTC)', 'by', 'via', 'from', 'what changed'], rows)}\n`);
    });
  });

  common(config.command('diff <a> <b>').description('what changed from revision A to revision B')).action(
    async (a: string, b: string, flags: Flags) => {
      const from = parseIntegerFlag('A', a, 0);
      const to = parseIntegerFlag('B', b, 0);
      await withStore(io, flags, undefined, async (store) => {
        const diff = await store.diff(from, to).catch((error: unknown) => {
          throw error instanceof UnknownRevisionError ? usageError(error.message) : error;
        });
        io.stdout.write(`${diff.text}\n`);
      });
    },
  );

  common(config.command('rollback <rev>').description('store a new revision equal to REV')).action(
    async (rev: string, flags: Flags) => {
      const target = parseIntegerFlag('REV', rev, 1);
      await withStore(io, flags, undefined, async (store) => {
        const result = await store.rollback(target, who(io, flags)).catch((error: unknown) => {
          throw error instanceof UnknownRevisionError ? usageError(error.message) : error;
        });
        report(io, `revision ${target}`, result);
      });
    },
  );

  common(
    config
      .command('release')
      .description('hand a file-managed configuration to the console (a new revision, same settings)'),
  ).action(async (flags: Flags) => {
    await withStore(io, flags, undefined, async (store) => {
      const rev = await store.currentRev();
      if (rev === 0) throw new CliError('no configuration revision is stored yet');
      const { document } = await store.get(rev);
      report(
        io,
        `revision ${rev}`,
        await store.propose(document, {
          basedOn: rev,
          by: who(io, flags),
          via: 'cli',
          from: 'release',
          managed: { by: 'console' },
        }),
      );
    });
  });
}
