import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import { downShardLine } from '../app/shard-health.ts';
import { gatherStatus, type StatusReport, type WorkspaceStatus } from '../app/status.ts';
import { silentLogger } from '../ops/logger.ts';
import { managementText, openRevisionStore } from '../revisions/index.ts';
import { formatDuration } from '../util/duration.ts';
import { isTimeZone } from '../util/zoned-time.ts';
import { summaryOf } from './commands.ts';
import { CliError } from './errors.ts';
import { cell, formatTable, groupDigits, isoSecond, printJson, whenText } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { silenceTable } from './silence-format.ts';
import { VERSION } from './version.ts';

/** The zone every workspace shares, else UTC: the zone people get by default too (config/people.ts). */
function workspacesZone(zones: readonly string[]): string {
  const distinct = new Set(zones);
  const [only] = distinct;
  return distinct.size === 1 && only !== undefined ? only : 'UTC';
}

const EXAMPLES = `
Examples:
  $ shelfwatch status --config shelfwatch.yaml
  $ shelfwatch status --json | jq '.workspaces[].month'

Reads Redis only: it spends no API request. Times are in --time-zone, else the workspaces' zone
(UTC when they differ); the first line names it. "next poll" is when the target's
poll scheduler fires next; "not scheduled" means no "shelfwatch run" has reconciled it yet.`;

function budgetLines(ws: WorkspaceStatus, now: number, zone: string): string[] {
  const { minute, month } = ws;
  const pause =
    ws.pause === null
      ? 'no'
      : `YES (${ws.pause.reason ?? 'unknown reason'}) ${ws.pause.untilMs === null ? 'until resumed' : `until ${whenText(ws.pause.untilMs, now, zone)}`}`;
  const rows: [string, string][] = [
    [
      'this minute',
      `${groupDigits(minute.used)} used, ${groupDigits(minute.left)} left of ${groupDigits(minute.limit)}`,
    ],
    [
      `this month (${month.label})`,
      `${groupDigits(month.used)} used, ${groupDigits(month.left)} left of ${groupDigits(month.limit)}; polls stop at ${groupDigits(month.pollCeiling)}; resets ${isoSecond(month.resetsAtMs, zone)}`,
    ],
    [
      'projected month end',
      `${groupDigits(ws.projectedMonthEnd)} requests${ws.planFits ? '' : ' (the plan does NOT fit: "shelfwatch plan" names the month or the per-minute limit)'}`,
    ],
    ['paused', pause],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`);
}

function targetTable(ws: WorkspaceStatus, now: number, zone: string): string {
  if (ws.targets.length === 0) return '  (no targets)';
  // What people call the target first (a book's title, a campaign's name), its id second.
  const rows = ws.targets.map((t) => [
    t.name === null ? '' : cell(t.name, 40),
    t.id,
    t.kind,
    t.nextPollAtMs === null ? 'not scheduled' : whenText(t.nextPollAtMs, now, zone),
    t.everyMs === null ? '—' : formatDuration(t.everyMs),
    t.lastOutcome ?? 'never polled',
    whenText(t.lastPollAtMs, now, zone),
    String(t.consecutiveFailures),
    t.lastError === null ? '' : cell(t.lastError, 80),
  ]);
  return formatTable(
    ['title', 'target', 'kind', 'next poll', 'every', 'last outcome', 'last poll', 'failures', 'last error'],
    rows,
    ['left', 'left', 'left', 'left', 'left', 'left', 'left', 'right', 'left'],
  )
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

const MISMATCH = /^SchemaMismatchError: (GET|POST) (\S+) /;

/**
 * The last answer per endpoint that did not fit the API contract (docs/real-api.md), from the
 * targets' last errors: which logical field broke, where, and what was there. Empty when none.
 */
export function contractMismatchLines(ws: WorkspaceStatus, now: number, zone = 'UTC'): string[] {
  const last = new Map<string, WorkspaceStatus['targets'][number]>();
  for (const target of ws.targets) {
    const endpoint = target.lastError === null ? null : MISMATCH.exec(target.lastError);
    if (endpoint === null) continue;
    const key = `${endpoint[1]} ${endpoint[2]}`;
    const seen = last.get(key);
    if (seen === undefined || (target.lastPollAtMs ?? 0) > (seen.lastPollAtMs ?? 0)) last.set(key, target);
  }
  if (last.size === 0) return [];
  const rows = [...last].map(([endpoint, t]) => [
    endpoint,
    t.id,
    whenText(t.lastPollAtMs, now, zone),
    cell((t.lastError ?? '').replace(/^.*? does not match the contract at /, 'at '), 100),
  ]);
  const table = formatTable(['endpoint', 'target', 'when', 'last mismatch'], rows, [
    'left',
    'left',
    'left',
    'left',
  ]);
  return [
    '  answers that do not fit the API contract (last per endpoint; see docs/real-api.md):',
    ...table.split('\n').map((line) => `  ${line}`),
  ];
}

function countsText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([state, n]) => `${state} ${groupDigits(n)}`)
    .join(', ');
}

function silenceLines(silences: StatusReport['silences'], now: number, zone: string): string[] {
  const out = [
    `silenced in the last 24h: ${groupDigits(silences.silencedLastDay)} alerts (recorded, not sent)`,
  ];
  for (const r of silences.recent) out.push(`  ${cell(r.title, 80)}  [silence ${cell(r.silenceId, 30)}]`);
  out.push('silences', silenceTable(silences.current, now, zone));
  return out;
}

/** The human-readable form of a status report. */
/**
 * With more than one shard: which shards answer, and for each one that does not, the workspaces
 * that wait for it (they are left out below; every other workspace goes on).
 */
function shardLines(report: StatusReport): string[] {
  if (report.shards.length < 2) return [];
  const down = report.shards.filter((s) => !s.reachable);
  const lines = down.map((s) => `SHARD DOWN: ${cell(downShardLine(s), 300)}`);
  const rows = report.shards.map((s) => [
    String(s.index),
    s.prefix,
    s.reachable ? 'answers' : `DOWN: ${cell(s.error ?? '', 60)}`,
    s.workspaces.length === 0 ? '-' : cell(s.workspaces.join(', '), 80),
  ]);
  return [
    ...lines,
    ...(down.length > 0 ? [''] : []),
    'shards',
    formatTable(['shard', 'prefix', 'node', 'workspaces'], rows, ['right', 'left', 'left', 'left']),
    '',
  ];
}

/** `zone`: the viewer's (a flag, else the workspaces'); the first line names it. */
export function formatStatus(report: StatusReport, zone = 'UTC'): string {
  const now = report.generatedAtMs;
  const out: string[] = [`shelfwatch status at ${isoSecond(now, zone)} (times in ${zone})`, ''];
  if (report.stateLostAtMs !== null) {
    out.push(
      `REDIS LOST THE STATE: noticed ${whenText(report.stateLostAtMs, now, zone)}. Baselines, the dedup log, group`,
      '  buffers and schedulers were rebuilt; docs/reliability.md says what could not be recovered.',
      '',
    );
  }
  out.push(...shardLines(report));
  for (const ws of report.workspaces) {
    const plan = `${ws.plan.name}: ${groupDigits(ws.plan.perMinute)}/min, ${groupDigits(ws.plan.perMonth)}/month`;
    out.push(`workspace ${ws.id} — plan ${plan}, reserve ${Math.round(ws.reserve * 100)}%`);
    out.push(...budgetLines(ws, now, zone), '', targetTable(ws, now, zone), '');
    const mismatches = contractMismatchLines(ws, now, zone);
    if (mismatches.length > 0) out.push(...mismatches, '');
  }
  const channels = report.channels.map((c) => [
    c.id,
    c.type,
    c.disabledReason === null
      ? c.deadLetters > 0
        ? 'FAILING'
        : 'ok'
      : `DISABLED: ${cell(c.disabledReason, 100)}`,
    String(c.deadLetters),
  ]);
  out.push(
    'channels',
    formatTable(['channel', 'type', 'state', 'dead letters'], channels, ['left', 'left', 'left', 'right']),
  );
  out.push('');
  const hint = report.deadLetters > 0 ? ' (see "shelfwatch dlq list")' : '';
  out.push(`dead letters: ${groupDigits(report.deadLetters)}${hint}`);
  out.push(`queue poll:    ${countsText(report.queues.poll)}`);
  out.push(`queue deliver: ${countsText(report.queues.deliver)}`);
  out.push('', ...silenceLines(report.silences, now, zone));
  return `${out.join('\n')}\n`;
}

export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description(summaryOf('status'))
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--json', 'print the same data as JSON (times in ms since the epoch)')
    .option(
      '--time-zone <zone>',
      "IANA zone of the times shown (default: the workspaces' zone, UTC when they differ)",
    )
    .addHelpText('after', EXAMPLES)
    .action(async (options: { config?: string; json?: boolean; timeZone?: string }) => {
      if (options.timeZone !== undefined && !isTimeZone(options.timeZone))
        throw new CliError(
          `--time-zone: expected an IANA zone such as Europe/Berlin, got "${options.timeZone}"`,
        );
      const config = loadConfigOrThrow(io, options.config);
      const zone = options.timeZone ?? workspacesZone(config.workspaces.map((ws) => ws.timeZone));
      // Status sends nothing: no channel notifiers are built.
      const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
      await connectRuntime(runtime);
      try {
        const report = await gatherStatus(runtime);
        const live = await configStatus(runtime);
        if (options.json === true) printJson({ ...report, timeZone: zone, config: live }, io.stdout);
        else io.stdout.write(`${formatStatus(report, zone)}${configStatusText(live)}`);
      } finally {
        await runtime.close();
      }
    });
}

interface ConfigStatus {
  revision: number;
  by?: string;
  at?: string;
  managed?: string;
  /** Each running process (`host:pid`) and the revision it runs; `failing` when a newer one did not apply there. */
  processes: { process: string; revision: number; failing?: string }[];
}

/** The live configuration: the revision in force and what each running process runs (revisions/). */
async function configStatus(runtime: Runtime): Promise<ConfigStatus> {
  const store = openRevisionStore({ redis: runtime.redis, prefix: runtime.prefix, env: {} });
  const revision = await store.currentRev();
  const meta = revision === 0 ? undefined : (await store.get(revision)).meta;
  const processes = [...(await store.processes())].map(([process, state]) => ({
    process,
    revision: state.rev,
    ...(state.failing === undefined
      ? {}
      : { failing: `revision ${state.failing.rev}: ${state.failing.reason}` }),
  }));
  return {
    revision,
    ...(meta === undefined ? {} : { by: meta.by, at: meta.at, managed: managementText(meta.managed) }),
    processes,
  };
}

function configStatusText(live: ConfigStatus): string {
  const head =
    live.revision === 0
      ? 'config: no revision stored (processes run their own file)'
      : `config: revision ${live.revision} in force (${live.at}, ${live.by}; managed by ${live.managed})`;
  const lines = live.processes.map(
    (p) =>
      `  ${p.process}: revision ${p.revision}${p.failing === undefined ? '' : ` — NOT applied: ${p.failing}`}`,
  );
  return `\n${[head, ...lines].join('\n')}\n`;
}
