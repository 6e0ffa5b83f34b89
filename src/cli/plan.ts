import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import { targetNames } from '../app/target-names.ts';
import { type Plan, planVerdict } from '../budget/planner.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { silentLogger } from '../ops/logger.ts';
import { targetsOfWorkspace } from '../poll/registry.ts';
import { planWorkspace } from '../poll/schedule.ts';
import { summaryOf } from './commands.ts';
import { CliError, EXIT_PLAN_DOES_NOT_FIT } from './errors.ts';
import { printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { formatPlanTable } from './plan-table.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';

/** The `plan --json` shape (documented in the README): one entry per workspace, `fits` overall. */
function planJson(config: ShelfwatchConfig, plans: ReadonlyMap<string, Plan>) {
  const workspaces = config.workspaces.flatMap((ws) => {
    const plan = plans.get(ws.id);
    if (plan === undefined) return [];
    const { rows, ...totals } = plan;
    return [{ id: ws.id, plan: ws.plan, reserve: ws.reserve, ...totals, targets: rows }];
  });
  return { fits: workspaces.every((ws) => ws.fits), workspaces };
}

export function registerPlanCommand(program: Command, io: CliIo): void {
  program
    .command('plan')
    .description(summaryOf('plan'))
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--offline', 'plan from first-guess costs and an unused month, without Redis')
    .option('--json', 'print the plans as JSON (cadences in ms)')
    .addHelpText(
      'after',
      `
Examples:
  $ shelfwatch plan --config shelfwatch.yaml
  $ shelfwatch plan --offline      # before the first run: no Redis needed
  $ shelfwatch plan --json | jq '.workspaces[] | {id, fits, projectedUse}'

Exit status 3 when a workspace's plan does not fit the month (polls would stop at the ceiling) or
the per-minute limit (the budget gate would delay polls); the message names which, with its figures.`,
    )
    .action(async (options: { config?: string; offline?: boolean; json?: boolean }) => {
      const config = loadConfigOrThrow(io, options.config);
      let plans: Map<string, ReturnType<typeof planWorkspace>>;
      // Titles from the book snapshots when Redis is there; offline only campaigns have names.
      const names = new Map<string, Map<string, string>>();
      if (options.offline === true) {
        const now = Date.now();
        plans = new Map(
          config.workspaces.map((ws) => [
            ws.id,
            planWorkspace(ws, targetsOfWorkspace(ws), new Map(), 0, now),
          ]),
        );
        for (const ws of config.workspaces) {
          const campaigns = targetsOfWorkspace(ws).flatMap((t) =>
            t.kind === 'reviews' && t.campaignName !== undefined ? [[t.ref.id, t.campaignName] as const] : [],
          );
          names.set(ws.id, new Map(campaigns));
        }
      } else {
        const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION });
        await connectRuntime(runtime);
        try {
          plans = await runtime.plans();
          for (const ws of config.workspaces)
            names.set(ws.id, await targetNames(runtime.store, targetsOfWorkspace(ws)));
        } finally {
          await runtime.close();
        }
      }
      const report = planJson(config, plans);
      if (options.json === true) printJson(report, io.stdout);
      for (const ws of options.json === true ? [] : config.workspaces) {
        const plan = plans.get(ws.id);
        if (plan === undefined) continue;
        io.stdout.write(
          `workspace ${ws.id} — plan ${ws.plan.name}: ${ws.plan.perMinute}/min, ${ws.plan.perMonth}/month, reserve ${Math.round(ws.reserve * 100)}%\n`,
        );
        io.stdout.write(`${formatPlanTable(plan, names.get(ws.id))}\n`);
        io.stdout.write('\n');
      }
      // Each workspace that does not fit, with the limit that binds (the month, the minute, or both).
      const over = report.workspaces.flatMap((ws) => {
        const plan = plans.get(ws.id);
        return ws.fits || plan === undefined ? [] : [`workspace ${ws.id}: ${planVerdict(plan)}`];
      });
      if (over.length > 0) {
        throw new CliError(
          `${over.join('; ')}: drop targets, allow slower cadences, lower the reserve or raise the plan`,
          { exitCode: EXIT_PLAN_DOES_NOT_FIT },
        );
      }
    });
}
