/**
 * What `shelfwatch run` says while it runs, so an operator sees it is alive between alerts: the
 * plan of each workspace at start (a plan that does not fit is a warning with its numbers), when
 * every target has its baseline, the first alert raised and sent, then one summary line per
 * interval. It only listens to the workers' events; it changes nothing.
 */
import type { EventEmitter } from 'node:events';
import { type Plan, planVerdict } from '../budget/planner.ts';
import type { Logger } from '../ops/logger.ts';
import { formatDuration } from '../util/duration.ts';
import { MINUTE_MS } from '../util/time-units.ts';

export const DEFAULT_REPORT_EVERY_MS = 10 * MINUTE_MS;

/** `1234567` → `1,234,567`, the same on every machine. */
function grouped(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "book every 1h, keywords every 6h–12h": the cadences the plan gave each kind of target. */
export function cadencesByKind(plan: Plan): string {
  const byKind = new Map<string, number[]>();
  for (const row of plan.rows) byKind.set(row.kind, [...(byKind.get(row.kind) ?? []), row.cadenceMs]);
  return [...byKind]
    .map(([kind, cadences]) => {
      const fastest = formatDuration(Math.min(...cadences));
      const slowest = formatDuration(Math.max(...cadences));
      return `${kind} every ${fastest === slowest ? fastest : `${fastest}–${slowest}`}`;
    })
    .join(', ');
}

/** One line per workspace: its targets and cadences, or a warning when the plan does not fit. */
export function logPlans(logger: Logger, plans: ReadonlyMap<string, Plan>): void {
  for (const [workspace, plan] of plans) {
    const numbers = {
      workspace,
      targets: plan.rows.length,
      projectedUse: plan.projectedUse,
      plannableBudget: plan.plannableBudget,
      perMinutePeak: plan.perMinutePeak,
    };
    logger.info(numbers, `workspace ${workspace}: ${plan.rows.length} targets, ${cadencesByKind(plan)}`);
    if (!plan.fits) {
      logger.warn(
        { ...numbers, warnings: plan.warnings },
        `workspace ${workspace}: ${planVerdict(plan)}; ${plan.binding.includes('month') ? 'polls will stop at the ceiling' : 'the budget gate delays polls'} (see "shelfwatch plan")`,
      );
    }
  }
}

export interface MonthUse {
  used: number;
  limit: number;
}

export interface RunReporterOptions {
  logger: Logger;
  /** Targets per workspace: "baselines stored" is said once each of them has its first snapshot. */
  targets: ReadonlyMap<string, number>;
  /** This month's requests per workspace, for the interval line. */
  monthUse: () => Promise<ReadonlyMap<string, MonthUse>>;
  everyMs?: number;
}

interface JobLike {
  data?: { workspace?: string; targetId?: string; channelId?: string };
  name?: string;
}

interface PollResultLike {
  status?: string;
  alerts?: number;
  baseline?: boolean;
}

/** Counts the workers' job events and logs the milestones and one line per interval. */
export class RunReporter {
  private readonly baselined = new Map<string, Set<string>>();
  private firstAlertRaised = false;
  private firstMessageSent = false;
  private counts = { pollsOk: 0, pollsFailed: 0, alertsRaised: 0, messagesSent: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RunReporterOptions) {}

  /** Listens to the poll and deliver workers (BullMQ `Worker`s are event emitters): once per shard. */
  attach(poll: EventEmitter, deliver: EventEmitter): void {
    poll.on('completed', (job: JobLike, result: PollResultLike) => this.onPoll(job, result));
    poll.on('failed', () => {
      this.counts.pollsFailed++;
    });
    deliver.on('completed', (job: JobLike, result: PollResultLike) => this.onDelivery(job, result));
    if (this.timer !== undefined) return;
    const everyMs = this.options.everyMs ?? DEFAULT_REPORT_EVERY_MS;
    this.timer = setInterval(() => void this.report(everyMs), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private onPoll(job: JobLike, result: PollResultLike): void {
    const { logger } = this.options;
    if (result.status === 'ok') this.counts.pollsOk++;
    else if (result.status === 'error' || result.status === 'no_data') this.counts.pollsFailed++;
    const alerts = result.alerts ?? 0;
    this.counts.alertsRaised += alerts;
    const workspace = job.data?.workspace;
    if (alerts > 0 && !this.firstAlertRaised) {
      this.firstAlertRaised = true;
      logger.info({ workspace, target: job.data?.targetId, alerts }, 'first alerts raised');
    }
    if (result.status !== 'ok' || result.baseline !== true || workspace === undefined) return;
    const expected = this.options.targets.get(workspace);
    const done = this.baselined.get(workspace) ?? new Set<string>();
    if (expected === undefined || done.size >= expected) return;
    done.add(job.data?.targetId ?? '');
    this.baselined.set(workspace, done);
    if (done.size === expected) logger.info({ workspace, targets: expected }, 'baselines stored');
  }

  private onDelivery(job: JobLike, result: PollResultLike): void {
    if (result.status !== 'sent') return;
    this.counts.messagesSent++;
    if (this.firstMessageSent) return;
    this.firstMessageSent = true;
    this.options.logger.info(
      { channel: job.data?.channelId, alerts: result.alerts },
      'first alert message sent',
    );
  }

  /** Logs the interval's counts and this month's budget use, then starts counting afresh. */
  async report(everyMs: number): Promise<void> {
    const counts = this.counts;
    this.counts = { pollsOk: 0, pollsFailed: 0, alertsRaised: 0, messagesSent: 0 };
    const use = await this.options.monthUse().catch(() => new Map<string, MonthUse>());
    const budget = [...use].map(([ws, u]) => `${ws} ${grouped(u.used)} of ${grouped(u.limit)}`).join(', ');
    this.options.logger.info(
      { ...counts, budget: Object.fromEntries(use) },
      `last ${formatDuration(everyMs)}: ${counts.pollsOk} polls ok, ${counts.pollsFailed} failed, ` +
        `${counts.alertsRaised} alerts raised, ${counts.messagesSent} messages sent; ` +
        `requests this month: ${budget || 'unknown (Redis unreachable)'}`,
    );
  }
}
