import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import type { PauseEpisode, PauseEpisodes } from '../budget/pause-episode.ts';
import type { BudgetUsage, RedisRequestBudget } from '../budget/request-budget.ts';
import { silentLogger } from '../ops/logger.ts';
import { usageError } from './errors.ts';
import { isoSecond, printJson } from './format.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';

const EXAMPLES = `
Lifts a pause the API caused (a 429, an exhausted quota, a refused key) so the workspace's polls
go out again at once. Use it after fixing the API key, or when a pause outlasts its reason. The
next ok answer announces the recovery (source_recovered) if the pause was alerted.

Examples:
  $ shelfwatch resume studio
  $ shelfwatch resume studio --json`;

export interface ResumeReport {
  workspace: string;
  /** The pause in force that was lifted, or null when the workspace was not paused. */
  lifted: { reason: string | null; untilMs: number | null } | null;
  /** The open pause episode (alerted or not), closed by the next ok answer. */
  episode: PauseEpisode | null;
}

/** Lifts the workspace's pause and ends its episode's pause now; says what was in force. */
export async function resumeWorkspace(
  deps: { budget: RedisRequestBudget; pauses: PauseEpisodes },
  workspace: string,
): Promise<ResumeReport> {
  const usage: BudgetUsage = await deps.budget.usage(workspace);
  await deps.budget.resume(workspace);
  const episode = await deps.pauses.lift(workspace, deps.budget.clock.now());
  const paused = usage.pauseReason !== null || usage.pausedUntilMs !== null;
  return {
    workspace,
    lifted: paused ? { reason: usage.pauseReason, untilMs: finiteOrNull(usage.pausedUntilMs) } : null,
    episode: episode ?? null,
  };
}

function finiteOrNull(ms: number | null): number | null {
  return ms !== null && Number.isFinite(ms) ? ms : null;
}

export function formatResume(report: ResumeReport): string {
  const { lifted, episode } = report;
  if (lifted === null) {
    return episode === null
      ? `workspace ${report.workspace} was not paused; nothing to lift\n`
      : `workspace ${report.workspace} was not paused; its pause episode (${episode.reason} since ${isoSecond(episode.sinceMs)}) ends with the next ok answer\n`;
  }
  const until = lifted.untilMs === null ? 'until resumed' : `until ${isoSecond(lifted.untilMs)}`;
  const since = episode === null ? '' : `, since ${isoSecond(episode.sinceMs)}`;
  return `lifted the pause of workspace ${report.workspace} (${lifted.reason ?? 'unknown reason'}${since}, ${until}); its polls go out again\n`;
}

export function registerResumeCommand(program: Command): void {
  program
    .command('resume')
    .description('lift the pause of a workspace (after a 429, an exhausted quota or a refused key)')
    .argument('<workspace>', 'the workspace id, as in the config')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--json', 'print the result as JSON (times in ms since the epoch)')
    .addHelpText('after', EXAMPLES)
    .action(async (workspace: string, options: { config?: string; json?: boolean }) => {
      const config = loadConfigOrThrow({
        env: process.env,
        ...(options.config === undefined ? {} : { configPath: options.config }),
      });
      if (!config.workspaces.some((ws) => ws.id === workspace)) {
        const known = config.workspaces.map((ws) => ws.id).join(', ');
        throw usageError(`resume: no workspace "${workspace}" in the config (known: ${known})`);
      }
      const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
      await connectRuntime(runtime);
      try {
        const report = await resumeWorkspace(runtime.pollDeps, workspace);
        if (options.json === true) printJson(report);
        else process.stdout.write(formatResume(report));
      } finally {
        await runtime.close();
      }
    });
}
