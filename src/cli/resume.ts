import type { Command } from 'commander';
import { type ResumeReport, resumeWorkspace } from '../app/resume.ts';
import { Runtime } from '../app/runtime.ts';
import { silentLogger } from '../ops/logger.ts';
import { summaryOf } from './commands.ts';
import { isoSecond, printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';
import { workspaceFromFlag } from './workspace-flag.ts';

const EXAMPLES = `
Lifts a pause the API caused (a 429, an exhausted quota, a refused key). The polls the pause
parked go out again at once; a poll it skipped (a wait past 15 min, e.g. an exhausted quota)
waits for its scheduler's next run. Use it after fixing the API key, or when a pause outlasts its
reason. The next ok answer announces the recovery (source_recovered) if the pause was alerted.

Examples:
  $ shelfwatch resume studio
  $ shelfwatch resume studio --json`;

export function formatResume(report: ResumeReport): string {
  const { lifted, episode } = report;
  const polls = `${report.promoted} parked poll${report.promoted === 1 ? '' : 's'} sent out now`;
  if (lifted === null) {
    return episode === null
      ? `workspace ${report.workspace} was not paused; nothing to lift; ${polls}\n`
      : `workspace ${report.workspace} was not paused; its pause episode (${episode.reason} since ${isoSecond(episode.sinceMs)}) ends with the next ok answer; ${polls}\n`;
  }
  const until = lifted.untilMs === null ? 'until resumed' : `until ${isoSecond(lifted.untilMs)}`;
  const since = episode === null ? '' : `, since ${isoSecond(episode.sinceMs)}`;
  return `lifted the pause of workspace ${report.workspace} (${lifted.reason ?? 'unknown reason'}${since}, ${until}); ${polls}, the others at their next scheduled run\n`;
}

export function registerResumeCommand(program: Command, io: CliIo): void {
  program
    .command('resume')
    .description(summaryOf('resume'))
    .argument('<workspace>', 'the workspace id, as in the config')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--json', 'print the result as JSON (times in ms since the epoch)')
    .addHelpText('after', EXAMPLES)
    .action(async (workspace: string, options: { config?: string; json?: boolean }) => {
      const config = loadConfigOrThrow(io, options.config);
      workspaceFromFlag(config, workspace, 'resume');
      const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
      await connectRuntime(runtime);
      try {
        const report = await resumeWorkspace(
          { ...runtime.shardOf(workspace).pollDeps, pollQueue: runtime.shardOf(workspace).pollQueue },
          workspace,
        );
        if (options.json === true) printJson(report, io.stdout);
        else io.stdout.write(formatResume(report));
      } finally {
        await runtime.close();
      }
    });
}
