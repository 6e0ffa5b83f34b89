/**
 * Sends invite batches one after another. Each batch carries its Idempotency-Key, so repeating
 * one (after a timeout, a 5xx or a minute 429) can never invite anyone twice: the API answers a
 * repeat with its first answer. What stops one batch stops the rest when it would stop them too
 * (budget, key, campaign); what is wrong with one batch only (409, 422) skips just that batch.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AnalyticsClient,
  ApiError,
  type ArcInviteResult,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  TransientError,
  UnauthorizedError,
  ValidationFailedError,
} from '../api/index.ts';
import { BudgetExhaustedError } from '../budget/request-budget.ts';
import type { Batch } from './batches.ts';

export type BatchOutcome =
  | {
      batch: Batch;
      status: 'sent';
      answer: ArcInviteResult;
      /** False when the answer repeats one a previous run already got and counted. */
      firstAnswer: boolean;
    }
  | {
      batch: Batch;
      status: 'not_sent';
      reason: string;
      /** Reasons the API gave for single rows (a 422's details), by row. */
      rowReasons?: Map<number, string>;
    };

export interface SendOptions {
  client: AnalyticsClient;
  campaignId: string;
  message?: string;
  signal?: AbortSignal;
  /**
   * Called with every accepted answer before the next batch goes out; says whether the answer is
   * new (true) or one a previous run already received (false). Default: every answer is new.
   */
  recordAnswer?: (batch: Batch, answer: ArcInviteResult) => Promise<boolean>;
  /** Tries per batch through transient failures and minute 429s. Default 3. */
  maxTries?: number;
  /** Wait before a retry when the API did not say how long; doubled each try. Default 1 s. */
  retryDelayMs?: number;
}

/**
 * What stopped the sending. `budget`, `quota` and `retries` pass (run again later); `key`, `plan`
 * and `campaign` do not: running the same command again gets the same refusal.
 */
export type StopCause = 'budget' | 'quota' | 'retries' | 'key' | 'plan' | 'campaign';
export const PERMANENT_STOPS: readonly StopCause[] = ['key', 'plan', 'campaign'];

export interface SendResult {
  outcomes: BatchOutcome[];
  /** Why sending stopped before the last batch; null when every batch was tried. */
  stoppedBecause: string | null;
  stopCause: StopCause | null;
}

type Decision =
  | { action: 'retry'; afterMs: number | undefined; reason: string }
  | { action: 'stop'; reason: string; cause: StopCause }
  | { action: 'skip'; reason: string; rowReasons?: Map<number, string> };

function at(ms: number): string {
  return new Date(ms).toISOString();
}

function budgetReason(error: BudgetExhaustedError): string {
  switch (error.reason) {
    case 'month':
      return `the month's request budget of workspace "${error.workspace}" is used up (it resets ${at(error.retryAtMs)})`;
    case 'paused':
      return `workspace "${error.workspace}" is paused (${error.pauseReason ?? 'by the API'}) until ${at(error.retryAtMs)}`;
    default:
      return `the per-minute limit of workspace "${error.workspace}" stays full too long; try again after ${at(error.retryAtMs)}`;
  }
}

/** `readers[3].email` → the row of the batch's 4th reader. */
function rowReasonsOf(error: ValidationFailedError, batch: Batch): Map<number, string> {
  const reasons = new Map<number, string>();
  for (const detail of error.details) {
    const match = /^readers\[(\d+)\](?:\.(\w+))?/.exec(detail.path);
    const reader = match === null ? undefined : batch.readers[Number(match[1])];
    if (reader === undefined) continue;
    const field = match?.[2] === undefined ? '' : `${match[2]} `;
    reasons.set(reader.row, `refused by the API: ${field}${detail.message}`);
  }
  return reasons;
}

function decide(error: unknown, batch: Batch, campaignId: string): Decision {
  if (error instanceof BudgetExhaustedError)
    return { action: 'stop', reason: budgetReason(error), cause: 'budget' };
  if (error instanceof RateLimitedError) {
    if (error.scope === 'month') {
      return {
        action: 'stop',
        reason: `the API says this month's quota is used up (${error.message})`,
        cause: 'quota',
      };
    }
    return { action: 'retry', afterMs: error.retryAfterMs, reason: error.message };
  }
  if (error instanceof TransientError)
    return { action: 'retry', afterMs: error.retryAfterMs, reason: error.message };
  if (error instanceof UnauthorizedError)
    return { action: 'stop', reason: `the API refused the key: ${error.message}`, cause: 'key' };
  if (error instanceof ForbiddenError) {
    return {
      action: 'stop',
      reason: `ARC invites are not enabled for this key's plan: ${error.message}`,
      cause: 'plan',
    };
  }
  if (error instanceof NotFoundError) {
    return {
      action: 'stop',
      reason: `the API knows no ARC campaign "${campaignId}": ${error.message}`,
      cause: 'campaign',
    };
  }
  if (error instanceof ConflictError) {
    return {
      action: 'skip',
      reason:
        "the API refused (409): this batch's readers were sent before with another message or other names, and the API keeps the first request; run again with the original message and names to see its answer",
    };
  }
  if (error instanceof ValidationFailedError) {
    return { action: 'skip', reason: error.message, rowReasons: rowReasonsOf(error, batch) };
  }
  if (error instanceof ApiError) return { action: 'skip', reason: error.message };
  throw error;
}

export async function sendBatches(batches: readonly Batch[], options: SendOptions): Promise<SendResult> {
  const maxTries = options.maxTries ?? 3;
  const baseDelayMs = options.retryDelayMs ?? 1_000;
  const outcomes: BatchOutcome[] = [];
  let stoppedBecause: string | null = null;
  let stopCause: StopCause | null = null;
  let stoppedAt = 0;
  for (const batch of batches) {
    if (stoppedBecause !== null) {
      // The reason is said once, on the batch that stopped; the rest point to it.
      outcomes.push({
        batch,
        status: 'not_sent',
        reason: `not tried: sending stopped at batch ${stoppedAt}`,
      });
      continue;
    }
    const body = {
      campaign_id: options.campaignId,
      readers: batch.readers.map(({ email, name }) => ({ email, name })),
      ...(options.message === undefined ? {} : { message: options.message }),
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { data } = await options.client.inviteArcReaders(body, {
          idempotencyKey: batch.idempotencyKey,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        const firstAnswer = (await options.recordAnswer?.(batch, data)) ?? true;
        outcomes.push({ batch, status: 'sent', answer: data, firstAnswer });
        break;
      } catch (error) {
        if (options.signal?.aborted === true) throw error;
        const decision = decide(error, batch, options.campaignId);
        if (decision.action === 'retry' && attempt < maxTries) {
          await delay(decision.afterMs ?? baseDelayMs * 2 ** (attempt - 1), undefined, {
            ...(options.signal === undefined ? {} : { signal: options.signal }),
          });
          continue;
        }
        if (decision.action === 'skip') {
          outcomes.push({
            batch,
            status: 'not_sent',
            reason: decision.reason,
            ...(decision.rowReasons === undefined ? {} : { rowReasons: decision.rowReasons }),
          });
        } else {
          const tries = decision.action === 'retry' ? ` after ${attempt} tries` : '';
          stoppedBecause = `${decision.reason}${tries}`;
          stopCause = decision.action === 'retry' ? 'retries' : decision.cause;
          stoppedAt = batch.number;
          outcomes.push({ batch, status: 'not_sent', reason: stoppedBecause });
        }
        break;
      }
    }
  }
  return { outcomes, stoppedBecause, stopCause };
}
