import { withTimeout } from '../../src/util/timeout.ts';

/**
 * The one wait of the test suite for state that has no event to wait on: polls `check` until it
 * gives a value (anything but undefined or false), and fails with `what` at the deadline. A check
 * that itself never answers (a hung connection, a fetch without a timeout) fails there too, by
 * name, instead of running into vitest's test timeout with no message.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A second of grace: a check started just before the deadline still gets its answer.
    const value = await within(
      `a check while waiting for ${what}`,
      Promise.resolve(check()),
      Math.max(0, deadline - Date.now()) + 1_000,
    );
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolveTick) => setTimeout(resolveTick, everyMs));
  }
}

/**
 * An await with a deadline that names what it waited for (a child's exit, a control call): a stall
 * fails as `what: no answer within … ms` rather than as a silent test timeout.
 */
export function within<T>(what: string, promise: Promise<T>, timeoutMs: number): Promise<T> {
  return withTimeout(promise, timeoutMs, what);
}
