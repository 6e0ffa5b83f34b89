import type { Dispatcher } from 'undici';
import { type AnalyticsClient, type BeforeRequest, createAnalyticsClient } from '../api/index.ts';
import { pollLimits } from '../budget/limits.ts';
import {
  acquireOne,
  BudgetExhaustedError,
  type BudgetLimits,
  budgetGate,
  type RedisRequestBudget,
} from '../budget/request-budget.ts';
import { workspaceContract } from '../config/contract.ts';
import {
  type ShelfwatchConfig,
  UnknownWorkspaceError,
  type WorkspaceConfig,
  workspaceOf,
} from '../config/schema.ts';
import type { Logger } from '../ops/logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { type Clock, realDelayMs } from '../util/clock.ts';
import { MINUTE_MS } from '../util/time-units.ts';

/** For tests: a dispatcher, short timeouts, no retry delay. */
export interface ClientTuning {
  dispatcher?: Dispatcher;
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  transientRetryDelayMs?: number;
}

/**
 * The process's API clients: one per workspace for background work (polls, the digest), and the
 * interactive ones commands ask for. Every client spends from the workspace's request budget and
 * reports each answer to the metrics and the budget's counts.
 */
export class ApiClients {
  private readonly background = new Map<string, AnalyticsClient>();
  private readonly interactive: AnalyticsClient[] = [];
  /** Workspaces already warned that the API states a lower limit than their plan's perMinute. */
  private readonly warnedLimit = new Set<string>();

  constructor(
    private readonly parts: {
      config: ShelfwatchConfig;
      budget: RedisRequestBudget;
      metrics: Metrics;
      logger: Logger;
      clock: Clock;
      version: string;
      tuning: ClientTuning;
    },
  ) {
    for (const ws of parts.config.workspaces) {
      this.background.set(ws.id, this.build(ws, budgetGate(parts.budget, ws.id, pollLimits(ws))));
    }
  }

  /** The workspace's client for background polls: keeps the reserve free. */
  client(workspace: string): AnalyticsClient {
    const client = this.background.get(workspace);
    if (client === undefined) throw new UnknownWorkspaceError(`no workspace "${workspace}" in the config`);
    return client;
  }

  /**
   * A client for interactive commands (keywords, arc invite): it may use the reserve, and instead
   * of failing when the minute window is full it waits for it (up to `maxWaitMs`).
   */
  interactiveClient(workspace: string, maxWaitMs = 5 * MINUTE_MS): AnalyticsClient {
    const { budget, clock } = this.parts;
    const ws = workspaceOf(this.parts.config, workspace);
    const limits: BudgetLimits = { perMinute: ws.plan.perMinute, perMonth: ws.plan.perMonth };
    const client = this.build(ws, async () => {
      const deadline = clock.now() + maxWaitMs;
      for (;;) {
        const one = await acquireOne(budget, ws.id, limits);
        if ('done' in one) return one.done;
        const { refusal } = one;
        if (refusal.reason === 'month' || refusal.retryAtMs > deadline) {
          throw new BudgetExhaustedError(ws.id, refusal, clock.now());
        }
        await new Promise((resolve) =>
          setTimeout(resolve, realDelayMs(clock, refusal.retryAtMs - clock.now())),
        );
      }
    });
    this.interactive.push(client);
    return client;
  }

  async close(): Promise<void> {
    for (const client of [...this.background.values(), ...this.interactive]) await client.close();
  }

  private build(ws: WorkspaceConfig, beforeRequest: BeforeRequest): AnalyticsClient {
    const { budget, metrics, logger, clock, tuning } = this.parts;
    return createAnalyticsClient({
      baseUrl: ws.baseUrl,
      apiKey: ws.apiKey.reveal(),
      allowInsecure: ws.allowInsecure,
      version: this.parts.version,
      now: () => clock.now(),
      contract: workspaceContract(ws),
      beforeRequest,
      onResponse: (res) => {
        metrics.apiRequest(ws.id, res.endpoint, res.status, res.durationMs);
        // The API's own count wins when ours is lower (Redis lost its data, another tool shares the key).
        const { limit, remaining, resetAt, quotaLimit, quotaRemaining } = res.rateLimit;
        // The budget paces by the plan; an API stating less (0.5/s = 30/min) would answer 429s.
        if (limit !== undefined && limit < ws.plan.perMinute && !this.warnedLimit.has(ws.id)) {
          this.warnedLimit.add(ws.id);
          logger.warn(
            { workspace: ws.id, apiPerMinute: limit, planPerMinute: ws.plan.perMinute },
            'the API states a lower rate limit than the plan: lower plan.perMinute to it',
          );
        }
        // Likewise its count of the current minute: the window may be short after a Redis crash.
        if (limit !== undefined && remaining !== undefined && limit >= remaining) {
          budget.syncMinuteUsed(ws.id, limit - remaining, resetAt).catch((error: unknown) => {
            logger.warn({ workspace: ws.id, err: error }, 'could not sync the minute window with the API');
          });
        }
        if (quotaLimit !== undefined && quotaRemaining !== undefined && quotaLimit >= quotaRemaining) {
          budget.syncMonthUsed(ws.id, quotaLimit - quotaRemaining).catch((error: unknown) => {
            logger.warn({ workspace: ws.id, err: error }, 'could not sync the month count with the API');
          });
        }
      },
      ...(tuning.dispatcher === undefined ? {} : { dispatcher: tuning.dispatcher }),
      ...(tuning.timeouts === undefined ? {} : { timeouts: tuning.timeouts }),
      ...(tuning.transientRetryDelayMs === undefined
        ? {}
        : { transientRetryDelayMs: tuning.transientRetryDelayMs }),
    });
  }
}
