import { AsyncLocalStorage } from 'node:async_hooks';
import { RateLimitedError, type RequestDone } from '../api/index.ts';
import { realDelayMs } from '../util/clock.ts';
import { withTimeout } from '../util/timeout.ts';
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
 * Resolves with what the client calls once the request has ended (`stampWhenAnswered`).
 */
export function budgetGate(
  budget: GatedBudget,
  workspace: string,
  limits: BudgetLimits | (() => BudgetLimits),
): (request?: unknown) => Promise<RequestDone> {
  return async () => {
    const current = typeof limits === 'function' ? limits() : limits;
    const walk = walks.getStore();
    if (walk === undefined || walk.workspace !== workspace) {
      const one = await acquireOne(budget, workspace, current);
      if (!('done' in one)) throw new BudgetExhaustedError(workspace, one.refusal, budget.clock.now());
      return one.done;
    }
    // A reserved request is stamped when it goes out, so it leaves the window a window later.
    const index = walk.taken + 1;
    const reserved = walk.taken < walk.reserved && (await budget.restamp(walk.grant, index));
    let done: RequestDone;
    if (reserved) {
      walk.taken = index;
      done = stampWhenAnswered(budget, walk.grant, index);
    } else done = await acquireWithinWalk(budget, walk, current);
    walk.sent += 1;
    return done;
  };
}

type Refusal = Extract<BudgetDecision, { granted: false }>;

/** How long an answer waits for its budget stamp before it goes on without it (Redis away). */
const ANSWERED_STAMP_WAIT_MS = 2_000;

/**
 * Moves a request's place in the window to when its answer came (or it failed): the API counted
 * it somewhere between the send and then, so from then on the window holds it at least as long as
 * the API's minute does. Stamped at the grant alone, a request that reached the API late (a worker
 * starved of CPU between grant and send, a new connection, an API slow to read it) had left the
 * window while the API still counted it, and the grant made then was one too many: 22 and 24
 * requests in one 60 s on a 20/min plan at load 25. A request whose stamp left the window while it was
 * out (a stall between the grant and the send, or a clock running fast in the demo) is put back.
 */
function stampWhenAnswered(budget: GatedBudget, grant: BudgetGrant, index: number): RequestDone {
  return async () => {
    // Redis away: the stamp stays at the send, as before (the API's X-RateLimit-Remaining still
    // syncs), and the answer is not held until Redis is back: the connection retries forever, and a
    // poll waiting here would hold its answer and a shutdown's abort. The queued stamp still lands
    // when Redis returns, later than the answer, which only leaves less room.
    await withTimeout(budget.answered(grant, index), ANSWERED_STAMP_WAIT_MS, 'the budget stamp').catch(
      () => undefined,
    );
  };
}

/** One request now, with what to call when it has ended, or the refusal. */
export async function acquireOne(
  budget: GatedBudget,
  workspace: string,
  limits: BudgetLimits,
): Promise<{ done: RequestDone } | { refusal: Refusal }> {
  const { decision, grant } = await budget.reserve(workspace, limits, 1);
  if (!decision.granted || grant === undefined) return { refusal: decision as Refusal };
  return { done: stampWhenAnswered(budget, grant, 1) };
}

/**
 * One more request for a walk that outgrew its reservation. A full minute window is waited out
 * here (it frees within one window) and the walk goes on from its cursor: deferring would throw
 * away every page already fetched. A pause or the month's ceiling still ends the walk.
 */
async function acquireWithinWalk(
  budget: GatedBudget,
  walk: Walk,
  limits: BudgetLimits,
): Promise<RequestDone> {
  for (;;) {
    const one = await acquireOne(budget, walk.workspace, limits);
    if ('done' in one) return one.done;
    const { refusal } = one;
    const now = budget.clock.now();
    if (refusal.reason !== 'minute' || walk.sent === 0 || refusal.retryAtMs - now > budget.windowMs) {
      throw new BudgetExhaustedError(walk.workspace, refusal, now);
    }
    await abortableSleep(realDelayMs(budget.clock, refusal.retryAtMs - now), walk.signal);
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
