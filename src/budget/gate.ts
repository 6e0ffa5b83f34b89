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
      const decision = await acquireFresh(budget, workspace, current);
      if (!decision.granted) throw new BudgetExhaustedError(workspace, decision, budget.clock.now());
      return;
    }
    // A reserved request is stamped when it goes out, so it leaves the window a window later.
    const reserved = walk.taken < walk.reserved && (await restampFresh(budget, walk.grant, walk.taken + 1));
    if (reserved) walk.taken += 1;
    else await acquireWithinWalk(budget, walk, current);
    walk.sent += 1;
  };
}

/**
 * How old (clock ms) a grant may be when its request is handed to the client. The window is the
 * API's 60 s minute plus one second for the request's way from the grant to the API; a process
 * starved of CPU spent more than that second between Redis's answer and the send, and its request
 * landed in the API's next minute beside the grants the window had already given for that minute
 * (22 and 24 requests in one 60 s on a 20/min plan, at load 25). Older than this, the grant is
 * stamped again before the request goes: half the second for the gate, half for the way there.
 */
export const GRANT_MAX_AGE_MS = 500;
/** Re-stamps in a row before the request goes anyway: each is one Redis round trip, and under an
 * accelerated clock (the demo) a round trip alone can be older than the limit. */
const MAX_RESTAMPS = 3;

/**
 * Stamps the grant's `index`-th request now, as it goes out, and keeps the stamp fresh (`keepFresh`).
 * False when the request has left the window (it never went out): take a new grant.
 */
async function restampFresh(budget: GatedBudget, grant: BudgetGrant, index: number): Promise<boolean> {
  const asked = budget.clock.now();
  if (!(await budget.restamp(grant, index))) return false;
  return keepFresh(budget, grant, index, asked);
}

/**
 * Stamps the request again until its stamp is at most `GRANT_MAX_AGE_MS` old when this returns.
 * Moving a stamp later is safe while it is in the window: every grant since has counted it. The
 * age is measured from before the Redis call, so it is never less than the stamp's. False when the
 * request has left the window meanwhile (a stall longer than the window).
 */
async function keepFresh(
  budget: GatedBudget,
  grant: BudgetGrant,
  index: number,
  askedAt: number,
): Promise<boolean> {
  let asked = askedAt;
  for (let tries = 0; tries < MAX_RESTAMPS && budget.clock.now() - asked > GRANT_MAX_AGE_MS; tries++) {
    asked = budget.clock.now();
    if (!(await budget.restamp(grant, index))) return false;
  }
  return true;
}

/**
 * One request now, or the refusal: a grant whose request can go out fresh (`GRANT_MAX_AGE_MS`). A
 * grant that left the window before it could be re-stamped is given back and asked for again.
 */
export async function acquireFresh(
  budget: GatedBudget,
  workspace: string,
  limits: BudgetLimits,
): Promise<BudgetDecision> {
  for (;;) {
    const asked = budget.clock.now();
    const { decision, grant } = await budget.reserve(workspace, limits, 1);
    if (!decision.granted || grant === undefined) return decision;
    if (await keepFresh(budget, grant, 1, asked)) return decision;
    await budget.refund(grant, 1);
  }
}

/**
 * One more request for a walk that outgrew its reservation. A full minute window is waited out
 * here (it frees within one window) and the walk goes on from its cursor: deferring would throw
 * away every page already fetched. A pause or the month's ceiling still ends the walk.
 */
async function acquireWithinWalk(budget: GatedBudget, walk: Walk, limits: BudgetLimits): Promise<void> {
  for (;;) {
    const decision = await acquireFresh(budget, walk.workspace, limits);
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
