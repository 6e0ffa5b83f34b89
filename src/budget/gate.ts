import { AsyncLocalStorage } from 'node:async_hooks';
import { RateLimitedError } from '../api/index.ts';
import { realDelayMs } from '../util/clock.ts';
import type { BudgetDecision, BudgetGrant, BudgetLimits, GatedBudget, PauseReason } from './budget-types.ts';
import { checkLimits } from './limits.ts';

/**
 * Thrown by `budgetGate` when a request may not go out now. Carries the decision so the poller
 * can turn it into a delayed job instead of spinning. Times are in the budget's clock.
 */
export class BudgetExhaustedError extends Error {
  override readonly name = 'BudgetExhaustedError';
  readonly workspace: string;
  readonly reason: 'minute' | 'month' | 'paused';
  readonly retryAtMs: number;
  /** `retryAtMs` minus the clock's now, at least 0. Clock ms: under an accelerated clock,
   * divide by the speed before using it as a real delay. */
  readonly retryAfterMs: number;
  readonly pauseReason: PauseReason | undefined;

  constructor(workspace: string, decision: Extract<BudgetDecision, { granted: false }>, nowMs: number) {
    const because = decision.pauseReason === undefined ? decision.reason : `paused (${decision.pauseReason})`;
    super(
      `request budget of workspace "${workspace}" exhausted: ${because}; retry at ${new Date(decision.retryAtMs).toISOString()}`,
    );
    this.workspace = workspace;
    this.reason = decision.reason;
    this.retryAtMs = decision.retryAtMs;
    this.retryAfterMs = Math.max(0, decision.retryAtMs - nowMs);
    this.pauseReason = decision.pauseReason;
  }
}

/** A walk (one poll's requests) under way in this async context: see `walkWithinBudget`. */
interface Walk {
  readonly workspace: string;
  readonly grant: BudgetGrant;
  /** Requests reserved before the walk started, and how many of them it has taken. */
  readonly reserved: number;
  taken: number;
  /** Requests the walk has been granted in all (reserved or not): what it has sent. */
  sent: number;
  readonly signal: AbortSignal;
}

const walks = new AsyncLocalStorage<Walk>();

/**
 * The API client's `beforeRequest` hook: takes one request from the budget or throws
 * `BudgetExhaustedError`. `limits` may be a function so a long-lived client sees re-read limits.
 * Inside `walkWithinBudget` a request first comes out of the walk's reservation; past it, a walk
 * that has already sent requests waits for the minute window instead of throwing them away.
 */
export function budgetGate(
  budget: GatedBudget,
  workspace: string,
  limits: BudgetLimits | (() => BudgetLimits),
): (request?: unknown) => Promise<void> {
  return async () => {
    const current = typeof limits === 'function' ? limits() : limits;
    const walk = walks.getStore();
    if (walk === undefined || walk.workspace !== workspace) {
      const decision = await budget.tryAcquire(workspace, current);
      if (!decision.granted) throw new BudgetExhaustedError(workspace, decision, budget.clock.now());
      return;
    }
    // A reserved request is stamped when it goes out, so it leaves the window a window later.
    const reserved = walk.taken < walk.reserved && (await budget.restamp(walk.grant, walk.taken + 1));
    if (reserved) walk.taken += 1;
    else await acquireWithinWalk(budget, walk, current);
    walk.sent += 1;
  };
}

/**
 * One more request for a walk that outgrew its reservation. A full minute window is waited out
 * here (it frees within one window) and the walk goes on from its cursor: deferring would throw
 * away every page already fetched. A pause or the month's ceiling still ends the walk.
 */
async function acquireWithinWalk(budget: GatedBudget, walk: Walk, limits: BudgetLimits): Promise<void> {
  for (;;) {
    const decision = await budget.tryAcquire(walk.workspace, limits);
    if (decision.granted) return;
    const now = budget.clock.now();
    if (decision.reason !== 'minute' || walk.sent === 0 || decision.retryAtMs - now > budget.windowMs) {
      throw new BudgetExhaustedError(walk.workspace, decision, now);
    }
    await abortableSleep(realDelayMs(budget.clock, decision.retryAtMs - now), walk.signal);
  }
}

/**
 * Runs `walk` inside a reservation of `costPerPoll` requests of the workspace's budget
 * (`walkWithinBudget` with the workspace's limits and the wasted-requests metric, wired by the
 * runtime). Shared by the poller and the digest's sales fetch.
 */
export type ReserveWalk = <T>(
  workspace: string,
  costPerPoll: number | null,
  signal: AbortSignal,
  walk: () => Promise<T>,
) => Promise<T>;

export interface WalkBudgetOptions {
  budget: GatedBudget;
  workspace: string;
  limits: BudgetLimits;
  /** The poll's learned cost (requests per poll, may be an average); null before its first poll. */
  costPerPoll: number | null;
  signal: AbortSignal;
  /** Requests sent by a walk that then had to wait (budget refusal, 429): their answers are lost. */
  onWasted?: (requests: number) => void;
}

/**
 * Runs one poll's requests (`walk`, which calls the client whose `beforeRequest` is `budgetGate`)
 * with its learned cost reserved up front, in one grant: a paginated walk then either starts with
 * room for all its pages or does not start, instead of fetching page 1 again each time a slot
 * frees. What the walk does not use is given back. Throws `BudgetExhaustedError` when the
 * reservation is refused (nothing was sent).
 */
export async function walkWithinBudget<T>(options: WalkBudgetOptions, walk: () => Promise<T>): Promise<T> {
  const { budget, workspace, limits } = options;
  const { perMinute } = checkLimits(limits);
  const count = Math.min(perMinute, Math.max(1, Math.ceil(options.costPerPoll ?? 1)));
  const { decision, grant } = await budget.reserve(workspace, limits, count);
  if (!decision.granted || grant === undefined) {
    throw new BudgetExhaustedError(
      workspace,
      decision as Extract<BudgetDecision, { granted: false }>,
      budget.clock.now(),
    );
  }
  const state: Walk = { workspace, grant, reserved: count, taken: 0, sent: 0, signal: options.signal };
  try {
    return await walks.run(state, walk);
  } catch (error) {
    if (state.sent > 0 && (error instanceof BudgetExhaustedError || error instanceof RateLimitedError)) {
      options.onWasted?.(state.sent);
    }
    throw error;
  } finally {
    // A lost refund only leaves the budget counting requests that never went out: the safe side.
    await budget.refund(grant, state.reserved - state.taken).catch(() => {});
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
