/**
 * The budget planner's verdict on a workspace as a form would leave it: requests a month, whether
 * the plan fits the month's quota and the per-minute rate, and the per-minute peak. The same
 * planner `run` schedules with (poll/schedule.ts), fed the learned costs and the month's use.
 */
import type { Runtime } from '../app/runtime.ts';
import { type Plan, planVerdict } from '../budget/planner.ts';
import type { WorkspaceConfig } from '../config/schema.ts';
import { targetsOfWorkspace } from '../poll/registry.ts';
import { planWorkspace } from '../poll/schedule.ts';
import { estimatedCostPerPoll } from '../poll/targets.ts';

export interface PlanPreview {
  /** Requests a full month takes at the planned cadences. */
  perMonth: number;
  quota: number;
  fits: boolean;
  perMinutePeak: number;
  perMinute: number;
  /** Empty when it fits; else which limit breaks, with its figures. */
  verdict: string;
  rows: { id: string; cadenceMs: number; requestsPerMonth: number; overridden: boolean }[];
}

export async function previewPlan(runtime: Runtime, ws: WorkspaceConfig): Promise<PlanPreview> {
  const targets = targetsOfWorkspace(ws);
  const healths = await Promise.all(targets.map((t) => runtime.store.getHealth(t.ref)));
  const costs = new Map(
    targets.map((t, i) => [t.ref.id, healths[i]?.costPerPoll ?? estimatedCostPerPoll(t)] as const),
  );
  const usage = await runtime.budget.usage(ws.id);
  const plan: Plan = planWorkspace(ws, targets, costs, usage.monthUsed, runtime.clock.now());
  return {
    perMonth: Math.round(plan.rows.reduce((sum, row) => sum + row.requestsPerMonth, 0)),
    quota: ws.plan.perMonth,
    fits: plan.fits,
    perMinutePeak: plan.perMinutePeak,
    perMinute: ws.plan.perMinute,
    verdict: planVerdict(plan),
    rows: plan.rows.map((row) => ({
      id: row.id,
      cadenceMs: row.cadenceMs,
      requestsPerMonth: Math.round(row.requestsPerMonth),
      overridden: row.overridden,
    })),
  };
}
