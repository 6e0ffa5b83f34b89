import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import { CsvFormatError, dryRun, type InviteRun, planInvites, sendInvites } from '../arc/invite.ts';
import type { ColumnNames } from '../arc/readers.ts';
import { PERMANENT_STOPS } from '../arc/send.ts';
import type { ShelfwatchConfig, WorkspaceConfig } from '../config/schema.ts';
import { silentLogger } from '../ops/logger.ts';
import { summaryOf } from './commands.ts';
import { CliError, usageError } from './errors.ts';
import { cell, formatTable, groupDigits, plural, printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { readStdin } from './terminal.ts';
import { VERSION } from './version.ts';
import { pickWorkspace } from './workspace-flag.ts';

interface InviteFlags {
  campaign: string;
  csv: string;
  column?: string[];
  workspace?: string;
  message?: string;
  dryRun?: boolean;
  json?: boolean;
  config?: string;
}

const EXAMPLES = `
The CSV needs a header row with an email and a name column (any order; other columns are ignored).
Usual titles are understood without case or punctuation: "email", "Email Address", "E-mail";
"name", "Full Name", "First Name" (joined with "Last Name" when there is one). Other titles:
--column email="Contact" --column name="Reader". --csv - reads the file from stdin.
Quoted fields, a BOM, CRLF line ends and ";" or tab delimiters are read. Rows with a bad email, no
name, or an email listed before are reported and skipped, never sent.

Readers go out in batches of 100. Each batch's Idempotency-Key is a hash of the campaign and its
emails, so running the same file again invites nobody twice: the API repeats its first answer, or
says already_invited. If the month's request budget runs out, the batches not sent are listed:
run the same command again next month. A campaign the API does not know (404) stops at once with
one line and exit 2; a refused key or a plan without ARC invites, exit 1.

Exit status: 0 when every valid row was sent, 1 when some were not (budget, API), 2 for bad flags,
an unknown campaign or a file that cannot be read.

Examples:
  $ shelfwatch arc invite --campaign camp-123 --csv readers.csv --dry-run
  $ shelfwatch arc invite --campaign camp-123 --csv readers.csv --message "Thanks for reading!"
  $ shelfwatch arc invite --campaign camp-123 --csv readers.csv --workspace acme --json
  $ mailchimp-export | shelfwatch arc invite --campaign camp-123 --csv - --column name="Nickname"`;

function readCsv(path: string, io: CliIo): string {
  if (path === '-') return readStdin('--csv', io);
  try {
    return readFileSync(resolve(io.cwd, path), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : String(code);
    throw usageError(`--csv: cannot read ${path}: ${why}`);
  }
}

/** `--column email="Email Address"` (repeatable) → which header titles hold the email and name. */
function parseColumns(raw: readonly string[]): ColumnNames {
  const columns: ColumnNames = {};
  for (const item of raw) {
    const eq = item.indexOf('=');
    const role = eq < 0 ? '' : item.slice(0, eq).trim().toLowerCase();
    const title = eq < 0 ? '' : item.slice(eq + 1).trim();
    if ((role !== 'email' && role !== 'name') || title === '') {
      throw usageError(
        `--column expects email=TITLE or name=TITLE, e.g. email="Email Address", got "${item}"`,
      );
    }
    columns[role] = title;
  }
  return columns;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function checkFlags(flags: InviteFlags): void {
  if (flags.campaign.trim() === '' || flags.campaign.length > 200) {
    throw usageError('--campaign expects a campaign id of 1 to 200 characters');
  }
  if (flags.message !== undefined && flags.message.trim() === '') {
    throw usageError('--message is empty: leave it out to send the campaign without a message');
  }
}

function batchTable(run: InviteRun): string {
  const sentBy = new Map(run.outcomes.map((o) => [o.batch.number, o.status]));
  const rows = run.batches.map((batch) => [
    String(batch.number),
    String(batch.readers.length),
    `${batch.readers[0]?.email ?? ''} … ${batch.readers.at(-1)?.email ?? ''}`,
    run.dryRun ? 'dry run' : (sentBy.get(batch.number) ?? 'not_sent'),
    batch.idempotencyKey,
  ]);
  return formatTable(['batch', 'readers', 'emails', 'status', 'idempotency key'], rows, ['right', 'right']);
}

function summaryLine(run: InviteRun): string {
  const s = run.summary;
  if (run.dryRun) {
    return `dry run: ${plural(s.notSent, 'valid reader')} in ${plural(s.batches, 'batch', 'batches')} (${plural(s.batches, 'request')}), ${plural(s.invalid, 'invalid row')}; nothing was sent`;
  }
  return `${groupDigits(s.invited)} invited, ${groupDigits(s.alreadyInvited)} already invited, ${groupDigits(s.invalid)} invalid, ${groupDigits(s.notSent)} not sent — ${s.batchesSent} of ${plural(s.batches, 'batch', 'batches')} sent`;
}

export function formatInviteRun(run: InviteRun, workspace: string): string {
  const rows = run.rows.map((r) => [
    String(r.row),
    r.email,
    r.status,
    r.inviteId ?? '',
    r.reason === undefined ? '' : cell(r.reason, 160),
  ]);
  const out = [
    `campaign ${run.campaignId}, workspace ${workspace}`,
    '',
    batchTable(run),
    '',
    formatTable(['row', 'email', 'status', 'invite id', 'reason'], rows, ['right']),
    '',
  ];
  if (run.stoppedBecause !== null) {
    const unsent = run.outcomes.filter((o) => o.status === 'not_sent').map((o) => o.batch.number);
    // Only a passing cause (budget, retries) goes away by itself; a refusal comes back the same.
    const next =
      run.stopCause !== null && PERMANENT_STOPS.includes(run.stopCause)
        ? 'fix the cause above, then run the command again (sent batches are not repeated)'
        : 'run the same command again to send them';
    out.push(`stopped: ${run.stoppedBecause}`);
    out.push(`not sent: ${plural(unsent.length, 'batch', 'batches')} (${unsent.join(', ')}); ${next}`);
  }
  out.push(summaryLine(run));
  return `${out.join('\n')}\n`;
}

function runAsJson(run: InviteRun, workspace: string) {
  const status = new Map(run.outcomes.map((o) => [o.batch.number, o]));
  return {
    workspace,
    campaign: run.campaignId,
    dryRun: run.dryRun,
    batches: run.batches.map((batch) => {
      const outcome = status.get(batch.number);
      return {
        number: batch.number,
        idempotencyKey: batch.idempotencyKey,
        readers: batch.readers.length,
        status: run.dryRun ? 'dry_run' : (outcome?.status ?? 'not_sent'),
        ...(outcome?.status === 'not_sent' ? { reason: outcome.reason } : {}),
      };
    }),
    rows: run.rows,
    stoppedBecause: run.stoppedBecause,
    summary: run.summary,
  };
}

function warnUnwatched(ws: WorkspaceConfig, campaign: string, io: CliIo): void {
  if (ws.campaigns.some((c) => c.id === campaign)) return;
  io.stderr.write(
    `shelfwatch: note: campaign "${campaign}" is not in workspace "${ws.id}"'s campaigns, so its reviews are not watched\n`,
  );
}

/**
 * A refusal before any batch went out (unknown campaign, refused key, plan without ARC) is one
 * line, not a table repeating it for every row: exit 2 for a campaign id that is wrong, else 1.
 */
function refuseAtOnce(run: InviteRun, ws: WorkspaceConfig): void {
  const cause = run.stopCause;
  if (cause === null || !PERMANENT_STOPS.includes(cause) || run.summary.batchesSent > 0) return;
  if (cause !== 'campaign') throw new CliError(`${run.stoppedBecause}; nothing was sent`);
  const known = ws.campaigns.map((c) => c.id);
  const listed =
    known.length === 0
      ? `workspace "${ws.id}" watches no campaign`
      : `workspace "${ws.id}" watches ${known.join(', ')}`;
  throw usageError(
    `the API knows no ARC campaign "${run.campaignId}" (404); nothing was sent. Check the id: ${listed} (against the simulator: "shelfwatch sim" lists the campaigns it serves)`,
  );
}

async function invite(config: ShelfwatchConfig, flags: InviteFlags, io: CliIo): Promise<void> {
  checkFlags(flags);
  const columns = parseColumns(flags.column ?? []);
  const ws = pickWorkspace(config, flags.workspace);
  const text = readCsv(flags.csv, io);
  let plan: ReturnType<typeof planInvites>;
  try {
    plan = planInvites(flags.campaign, text, columns);
  } catch (error) {
    if (error instanceof CsvFormatError) {
      const file = flags.csv === '-' ? '(stdin)' : flags.csv;
      throw usageError(`${file}: line ${error.line}: ${error.message}`);
    }
    throw error;
  }
  let run: InviteRun;
  if (flags.dryRun === true || plan.batches.length === 0) {
    run = { ...dryRun(plan), dryRun: flags.dryRun === true };
  } else {
    // Sends nothing through channels: no notifiers are built.
    const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
    await connectRuntime(runtime);
    try {
      run = await sendInvites(plan, {
        client: runtime.interactiveClient(ws.id),
        redis: runtime.redis,
        prefix: runtime.keys,
        workspace: ws.id,
        ...(flags.message === undefined ? {} : { message: flags.message }),
      });
    } finally {
      await runtime.close();
    }
  }
  if (flags.json === true) printJson(runAsJson(run, ws.id), io.stdout);
  refuseAtOnce(run, ws);
  warnUnwatched(ws, flags.campaign, io);
  if (flags.json !== true) io.stdout.write(formatInviteRun(run, ws.id));
  if (plan.batches.length === 0) throw new CliError(`${flags.csv}: no valid readers; nothing to send`);
  if (!run.dryRun && run.summary.notSent > 0) {
    const why = run.stoppedBecause ?? 'see the reasons above';
    throw new CliError(`${run.summary.notSent} readers not sent: ${why}`);
  }
}

export function registerArcCommand(program: Command, io: CliIo): void {
  const arc = program
    .command('arc')
    .description(summaryOf('arc'))
    .action(() => {
      throw usageError('arc: name what to do: invite');
    });
  arc
    .command('invite')
    .description('invite the readers of a CSV file to an ARC campaign, idempotently, in batches of 100')
    .requiredOption('--campaign <id>', 'the ARC campaign id')
    .requiredOption('--csv <file>', 'CSV with a header row naming the email and name columns; - for stdin')
    .option('--column <role=title>', 'the column holding email or name (repeatable)', collect)
    .option('-w, --workspace <id>', 'the workspace whose API key sends (needed when the config has several)')
    .option('--message <text>', 'a message to the readers, sent with the invitation')
    .option('--dry-run', 'check the file and show the batches; send nothing')
    .option('--json', 'print the result as JSON')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .addHelpText('after', EXAMPLES)
    .action(async (flags: InviteFlags) => {
      // Checked before the config is read: with both, the config would swallow the CSV.
      if (flags.config === '-' && flags.csv === '-') {
        throw usageError('--config - and --csv - both read stdin: give one of them a file');
      }
      const config = loadConfigOrThrow(io, flags.config);
      await invite(config, flags, io);
    });
}
