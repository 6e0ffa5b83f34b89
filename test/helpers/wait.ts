/**
 * The one wait of the test suite for state that has no event to wait on: polls `check` until it
 * gives a value (anything but undefined or false), and fails with `what` at the deadline.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolveTick) => setTimeout(resolveTick, everyMs));
  }
}
