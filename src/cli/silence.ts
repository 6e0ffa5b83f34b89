import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { isAsin } from '../api/index.ts';
import { Runtime } from '../app/runtime.ts';
import { bookTitlesByAsin } from '../app/target-names.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { suggest } from '../config-kit/suggest.ts';
import { findAlert } from '../deliver/sent-alert.ts';
import type { AlertKind, Severity } from '../model/alert.ts';
import { silentLogger } from '../ops/logger.ts';
import { checkSilence, SilenceInputError, type SilenceMatchers } from '../silence/silence.ts';
import { snoozeOf } from '../silence/snooze.ts';
import type { SilenceStore } from '../silence/store.ts';
import { parseDuration } from '../util/duration.ts';
import { summaryOf } from './commands.ts';
import { usageError } from './errors.ts';
import { isoSecond, printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { silenceTable, silenceViews } from './silence-format.ts';
import { VERSION } from './version.ts';
import { workspaceFromFlag } from './workspace-flag.ts';

interface CommonFlags {
  json?: boolean;
  config?: string;
}

interface TimeFlags {
  for?: string;
  until?: string;
  start?: string;
  reason?: string;
  by?: string;
}

interface AddFlags extends CommonFlags, TimeFlags {
  workspace?: string;
  asin?: string[];
  author?: string;
  keyword?: string;
  kind?: string[];
  severity?: string[];
  rule?: string;
}

const EXAMPLES = `
A silence keeps matching alerts from every channel: they are recorded and counted (status, the
digest), not sent, and not sent later either. Every matcher given must hold; at least one is needed.
Times are ISO 8601 ("2026-12-01", "2026-12-01T09:00+01:00"); a date alone is midnight UTC.

Examples:
  $ shelfwatch silence add --asin B0CJ4XQ2ZK --for 48h --reason "launch week"
  $ shelfwatch silence add --workspace acme --severity info,warning --until 2026-12-07 --reason "only critical"
  $ shelfwatch silence add --author "Ana Lima" --kind review_new --for 3d --reason "ARC flood" --by ana
  $ shelfwatch silence list --all --json
  $ shelfwatch silence expire 3f9c2a81d0b4
  $ shelfwatch snooze 9a1c…(the alert's fingerprint) --for 12h`;

/** Repeatable and comma-separated: `--kind a,b --kind c` → [a, b, c]. */
function list(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== ''),
  ];
}

function parseTime(flag: string, raw: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}/.test(raw.trim()) ? Date.parse(raw.trim()) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw usageError(`${flag} expects an ISO 8601 time such as 2026-12-01T09:00+01:00, got "${raw}"`);
  }
  return ms;
}

/** Start and end from --start, --for and --until; `needEnd` false lets a snooze run until resolved. */
function timesOf(flags: TimeFlags, nowMs: number, needEnd: boolean): { startsAt: number; endsAt?: number } {
  const startsAt = flags.start === undefined ? nowMs : parseTime('--start', flags.start);
  if (flags.for !== undefined && flags.until !== undefined)
    throw usageError('give --for or --until, not both');
  if (flags.for !== undefined) {
    const ms = parseDuration(flags.for);
    if (ms === undefined || ms <= 0)
      throw usageError(`--for expects a duration such as 48h or 90m, got "${flags.for}"`);
    return { startsAt, endsAt: startsAt + ms };
  }
  if (flags.until !== undefined) return { startsAt, endsAt: parseTime('--until', flags.until) };
  if (needEnd) throw usageError('a silence needs an end: --for 48h or --until 2026-12-07');
  return { startsAt };
}

function author(flags: TimeFlags): string {
  if (flags.by !== undefined) return flags.by;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

function matchersOf(flags: AddFlags, config: ShelfwatchConfig): SilenceMatchers {
  if (flags.workspace !== undefined) workspaceFromFlag(config, flags.workspace);
  for (const asin of flags.asin ?? []) {
    if (!isAsin(asin)) throw usageError(`--asin expects ASINs (10 characters A-Z or 0-9), got "${asin}"`);
  }
  const authors = [...new Set(config.workspaces.flatMap((ws) => ws.books.flatMap((b) => b.author ?? [])))];
  if (flags.author !== undefined && !authors.includes(flags.author)) {
    // An author matches through books[].author only: any other name would silence nothing.
    const close = suggest(flags.author, authors);
    const hint =
      close === undefined ? `configured: ${authors.join(', ') || 'none'}` : `did you mean "${close}"?`;
    throw usageError(`--author: no book in the config has the author "${flags.author}" (${hint})`);
  }
  const matchers: SilenceMatchers = {};
  if (flags.workspace !== undefined) matchers.workspace = flags.workspace;
  if (flags.asin !== undefined) matchers.asin = flags.asin;
  if (flags.author !== undefined) matchers.author = flags.author;
  if (flags.keyword !== undefined) matchers.keyword = flags.keyword;
  if (flags.kind !== undefined) matchers.kind = flags.kind as AlertKind[];
  if (flags.severity !== undefined) matchers.severity = flags.severity as Severity[];
  if (flags.rule !== undefined) matchers.rule = flags.rule;
  return matchers;
}

/**
 * Loads the config, runs `prepare` (checks of the input, before any connection, so bad input is
 * exit 2 even with Redis down), connects, runs `act`, closes. A refused silence is bad input.
 */
async function withRuntime<P, T>(
  io: CliIo,
  flags: CommonFlags,
  prepare: (runtime: Runtime) => P,
  act: (runtime: Runtime, store: SilenceStore, prepared: P) => Promise<T>,
) {
  const config = loadConfigOrThrow(io, flags.config);
  const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
  try {
    const prepared = prepare(runtime);
    await connectRuntime(runtime);
    return await act(runtime, runtime.silences, prepared);
  } catch (error) {
    if (error instanceof SilenceInputError) throw usageError(error.message);
    throw error;
  } finally {
    await runtime.close();
  }
}

function common(command: Command): Command {
  return command
    .option('--json', 'print the result as JSON')
    .option('-c, --config <file>', CONFIG_OPTION_HELP);
}

function timeOptions(command: Command): Command {
  return command
    .option('--for <duration>', 'how long, from the start: 48h, 3d, 90m')
    .option('--until <time>', 'when it ends (ISO 8601)')
    .option('--start <time>', 'when it starts (ISO 8601; default now)')
    .option('--by <name>', 'who sets it (default: your user name)');
}

export function registerSilenceCommands(program: Command, io: CliIo): void {
  const write = (text: string) => io.stdout.write(text);
  const silence = program
    .command('silence')
    .description(summaryOf('silence'))
    .addHelpText('after', EXAMPLES)
    .action(() => {
      throw usageError('silence: name what to do: add, list or expire');
    });

  timeOptions(
    common(silence.command('add').description('add a silence (at least one matcher, an end, a reason)')),
  )
    .option('--workspace <id>', 'alerts of this workspace')
    .option('--asin <asin>', 'alerts about these books (repeat or comma-separate)', list)
    .option('--author <name>', "alerts about this author's books (books[].author in the config)")
    .option('--keyword <text>', 'alerts about this keyword (any case)')
    .option('--kind <kind>', 'alerts of these kinds (repeat or comma-separate)', list)
    .option('--severity <level>', 'alerts of these severities: info, warning, critical', list)
    .option('--rule <id>', 'alerts raised by this rule')
    .option('--reason <text>', 'why (shown in status and on the silenced alerts)')
    .addHelpText('after', EXAMPLES)
    .action(async (flags: AddFlags) => {
      if (flags.reason === undefined) throw usageError('a silence needs --reason');
      const reason = flags.reason;
      const added = await withRuntime(
        io,
        flags,
        (runtime) => {
          const times = timesOf(flags, runtime.clock.now(), true);
          const matchers = matchersOf(flags, runtime.config);
          const input = { matchers, reason, createdBy: author(flags), startsAt: times.startsAt };
          const checked = { ...input, endsAt: times.endsAt ?? Number.NaN };
          checkSilence(checked);
          return checked;
        },
        (runtime, store, input) => store.add(input, runtime.clock.now()),
      );
      if (flags.json === true) printJson(added, io.stdout);
      else write(`silence ${added.id} added, until ${isoSecond(added.endsAt)}\n`);
    });

  common(silence.command('list').description('list silences: matchers, times, how many alerts each kept'))
    .option('--all', 'also those that ended (kept 30 days) ')
    .addHelpText('after', EXAMPLES)
    .action(async (flags: CommonFlags & { all?: boolean }) => {
      const { views, now } = await withRuntime(
        io,
        flags,
        () => undefined,
        async (runtime, store) => {
          const now = runtime.clock.now();
          const all = silenceViews(
            await store.all(),
            await store.hits(),
            now,
            await bookTitlesByAsin(runtime),
          );
          return { views: flags.all === true ? all : all.filter((v) => v.state !== 'expired'), now };
        },
      );
      if (flags.json === true) printJson(views, io.stdout);
      else write(`${silenceTable(views, now)}\n`);
    });

  common(silence.command('expire').description('end silences now').argument('<id...>', 'silence ids')).action(
    async (ids: string[], flags: CommonFlags) => {
      const ended = await withRuntime(
        io,
        flags,
        () => undefined,
        async (runtime, store) => {
          const out = [];
          for (const id of ids) {
            const silence = await store.expire(id, runtime.clock.now());
            if (silence === undefined)
              throw usageError(`no silence "${id}" (see shelfwatch silence list --all)`);
            out.push(silence);
          }
          return out;
        },
      );
      if (flags.json === true) printJson(ended, io.stdout);
      else for (const s of ended) write(`silence ${s.id} ended at ${isoSecond(s.endsAt)}\n`);
    },
  );

  timeOptions(
    common(
      program
        .command('snooze')
        .description(summaryOf('snooze'))
        .argument(
          '<fingerprint>',
          "the alert's fingerprint (printed on every email and in dlq/status output)",
        ),
    ),
  )
    .option('--reason <text>', 'why', 'snoozed')
    .addHelpText('after', EXAMPLES)
    .action(async (fingerprint: string, flags: CommonFlags & TimeFlags) => {
      const added = await withRuntime(
        io,
        flags,
        () => undefined,
        async (runtime, store) => {
          const channels = runtime.config.channels.map((c) => c.id);
          const alert = await findAlert(runtime.deliverQueue, channels, fingerprint);
          if (alert === undefined)
            throw usageError(`no alert with fingerprint "${fingerprint}" was delivered here`);
          const now = runtime.clock.now();
          const times = timesOf(flags, now, false);
          const snooze = snoozeOf(alert, times.startsAt, times.endsAt);
          const reason = `${flags.reason ?? 'snoozed'}: ${alert.title}`;
          return store.add({ ...snooze, reason, createdBy: author(flags) }, now);
        },
      );
      if (flags.json === true) printJson(added, io.stdout);
      else
        write(
          `snoozed as silence ${added.id}: until it resolves, at the latest ${isoSecond(added.endsAt)}\n`,
        );
    });
}
