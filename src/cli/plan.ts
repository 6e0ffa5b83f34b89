import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import { formatPlanTable } from '../budget/planner.ts';
import { silentLogger } from '../ops/logger.ts';
import { targetsOfWorkspace } from '../poll/registry.ts';
import { planWorkspace } from '../poll/schedule.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';

export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description("show each target's poll cadence and what the month's request budget allows")
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--offline', 'plan from first-guess costs and an unused month, without Redis')
    .addHelpText(
      'after',
      `
Examples:
  $ shelfwatch plan --config shelfwatch.yaml
  $ shelfwatch plan --offline      # before the first run: no Redis needed`,
    )
    .action(async (options: { config?: string; offline?: boolean }) => {
      const config = loadConfigOrThrow({
        env: process.env,
        ...(options.config === undefined ? {} : { configPath: options.config }),
      });
      let plans: Map<string, ReturnType<typeof planWorkspace>>;
      if (options.offline === true) {
        const now = Date.now();
        plans = new Map(
          config.workspaces.map((ws) => [
            ws.id,
            planWorkspace(ws, targetsOfWorkspace(ws), new Map(), 0, now),
          ]),
        );
      } else {
        const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION });
        await connectRuntime(runtime);
        try {
          plans = await runtime.plans();
        } finally {
          await runtime.close();
        }
      }
      for (const ws of config.workspaces) {
        const plan = plans.get(ws.id);
        if (plan === undefined) continue;
        process.stdout.write(
          `workspace ${ws.id} — plan ${ws.plan.name}: ${ws.plan.perMinute}/min, ${ws.plan.perMonth}/month, reserve ${Math.round(ws.reserve * 100)}%\n`,
        );
        process.stdout.write(`${formatPlanTable(plan)}\n`);
        process.stdout.write('\n');
      }
    });
}
