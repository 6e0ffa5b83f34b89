import type { Command } from 'commander';
import { summaryOf } from './commands.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP } from './load-config.ts';

/** The command's flags, as commander hands them over. */
type Flags = { format: string } & Partial<
  Record<'workspace' | 'book' | 'from' | 'to' | 'out' | 'config', string>
>;

const EXAMPLES = `
Tables: ranks (BSR, keywords and comps: hourly, then one row a day with the day's best, median
and worst), sales (one row a book and day) and alerts (the alert log). Rows stream as they are
read: a year of a large workspace is not held in memory. A range beyond what is kept is said on
stderr (and in the JSON's "notice"); what exists is exported. CSV text cells that a spreadsheet
would read as a formula (=, +, -, @) start with a quote mark.

Examples:
  $ shelfwatch export ranks --workspace acme --from 2026-01-01 > ranks.csv
  $ shelfwatch export sales --book B0CJ4XQ2ZK/US --format json --out sales.json
  $ shelfwatch export alerts --from 2026-11-01 --to 2026-11-30`;

export function registerExportCommand(program: Command, io: CliIo): void {
  program
    .command('export')
    .description(summaryOf('export'))
    .argument('<table>', 'ranks, sales or alerts')
    .option('--workspace <id>', 'only this workspace (default: all)')
    .option('--book <asin[/marketplace]>', 'only this book (in every marketplace unless one is named)')
    .option('--from <date>', 'first day, YYYY-MM-DD (default: as far back as kept)')
    .option('--to <date>', 'last day, YYYY-MM-DD (default: now)')
    .option('--format <format>', 'csv or json', 'csv')
    .option('--out <file>', 'write to this file (default: standard output)')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .addHelpText('after', EXAMPLES)
    .action(async (table: string, flags: Flags) => {
      // Loaded when the command runs: its help does not pay for it.
      const { runExport } = await import('./export-run.ts');
      await runExport(table, flags, io);
    });
}
