import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import {
  type DeadLetter,
  type DeadLetterDeps,
  listDeadLetters,
  purgeDeadLetters,
  retryDeadLetters,
} from '../deliver/dead-letters.ts';
import { silentLogger } from '../ops/logger.ts';
import { summaryOf } from './commands.ts';
import { usageError } from './errors.ts';
import { cell, formatTable, isoSecond, plural, printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';

interface DlqFlags {
  channel?: string;
  json?: boolean;
  config?: string;
}

const EXAMPLES = `
Dead letters are flush jobs (one message for a group of alerts) that failed for good: a channel
kept failing, or refused for good and was disabled. Their alerts wait in Redis until the dead
letter is retried or purged.

Examples:
  $ shelfwatch dlq list
  $ shelfwatch dlq list --channel team-slack --json
  $ shelfwatch dlq retry --channel team-slack     after fixing the webhook: re-enables the channel
  $ shelfwatch dlq purge --channel old-channel    drops them and their alerts`;

/** Alert titles shown per dead letter in the table; --json has them all. */
const TITLES_SHOWN = 3;

function table(letters: readonly DeadLetter[]): string {
  if (letters.length === 0) return 'no dead letters';
  const rows = letters.map((d) => {
    const more = d.titles.length > TITLES_SHOWN ? ` (+${d.titles.length - TITLES_SHOWN} more)` : '';
    const titles = d.titles
      .slice(0, TITLES_SHOWN)
      .map((t) => cell(t, 60))
      .join('; ');
    return [
      d.jobId,
      d.channelId,
      String(d.alertCount),
      titles + more,
      cell(d.failedReason, 80),
      String(d.attempts),
      d.failedAtMs === null ? '—' : isoSecond(d.failedAtMs),
    ];
  });
  return formatTable(
    ['job', 'channel', 'alerts', 'titles', 'failed because', 'attempts', 'failed at'],
    rows,
    ['left', 'left', 'right', 'left', 'left', 'right'],
  );
}

function checkChannel(config: ShelfwatchConfig, channel: string | undefined, allowUnknown: boolean): void {
  if (channel === undefined || allowUnknown || config.channels.some((c) => c.id === channel)) return;
  const known = config.channels.map((c) => c.id).join(', ');
  throw usageError(`--channel: no channel "${channel}" in the config (known: ${known})`);
}

/** Builds what a dlq action needs, runs it, and always closes the connection. */
async function withDeps<T>(
  io: CliIo,
  flags: DlqFlags,
  allowUnknown: boolean,
  act: (deps: DeadLetterDeps) => Promise<T>,
) {
  const config = loadConfigOrThrow(io, flags.config);
  checkChannel(config, flags.channel, allowUnknown);
  const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
  await connectRuntime(runtime);
  try {
    return await act({
      queue: runtime.deliverQueue,
      redis: runtime.redis,
      groups: runtime.deliveryDeps.groups,
      channelHealth: runtime.channelHealth,
      channels: config.channels.map((c) => c.id),
    });
  } finally {
    await runtime.close();
  }
}

function filterOf(flags: DlqFlags) {
  return flags.channel === undefined ? {} : { channelId: flags.channel };
}

function addCommon(command: Command): Command {
  return command
    .option('--channel <id>', 'only the dead letters of this channel')
    .option('--json', 'print the result as JSON')
    .option('-c, --config <file>', CONFIG_OPTION_HELP);
}

export function registerDlqCommand(program: Command, io: CliIo): void {
  const dlq = program
    .command('dlq')
    .description(summaryOf('dlq'))
    .addHelpText('after', EXAMPLES)
    .action(() => {
      throw usageError('dlq: name what to do: list, retry or purge');
    });
  const write = (text: string) => io.stdout.write(text);

  addCommon(dlq.command('list').description('list dead letters: channel, alerts, why they failed'))
    .addHelpText('after', EXAMPLES)
    .action(async (flags: DlqFlags) => {
      // Listing a channel that left the config is how its leftovers are found.
      const letters = await withDeps(io, flags, true, (deps) => listDeadLetters(deps, filterOf(flags)));
      if (flags.json === true) printJson(letters, io.stdout);
      else write(`${table(letters)}\n`);
    });

  addCommon(dlq.command('retry').description('queue dead letters again; re-enables their disabled channels'))
    .addHelpText('after', EXAMPLES)
    .action(async (flags: DlqFlags) => {
      const report = await withDeps(io, flags, false, (deps) => retryDeadLetters(deps, filterOf(flags)));
      if (flags.json === true) {
        printJson(report, io.stdout);
        return;
      }
      for (const channel of report.enabled) write(`channel ${channel} enabled again\n`);
      for (const d of report.skipped) {
        write(`skipped ${d.jobId}: channel ${d.channelId} is no longer configured (purge it)\n`);
      }
      const alerts = report.retried.reduce((sum, d) => sum + d.alertCount, 0);
      write(`retried ${plural(report.retried.length, 'dead letter')} (${plural(alerts, 'alert')})\n`);
    });

  addCommon(dlq.command('purge').description('delete dead letters and their alerts'))
    .addHelpText('after', EXAMPLES)
    .action(async (flags: DlqFlags) => {
      const removed = await withDeps(io, flags, true, async (deps) => {
        const letters = await listDeadLetters(deps, filterOf(flags));
        const alerts = letters.reduce((sum, d) => sum + d.alertCount, 0);
        if (flags.json !== true)
          write(`purging ${plural(letters.length, 'dead letter')} (${plural(alerts, 'alert')})\n`);
        return purgeDeadLetters(deps, filterOf(flags));
      });
      if (flags.json === true) printJson(removed, io.stdout);
      else write(`purged ${plural(removed.length, 'dead letter')}\n`);
    });
}
