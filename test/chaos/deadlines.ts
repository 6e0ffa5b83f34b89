/**
 * The chaos run's time limits, in one place: vitest's timeout (vitest.chaos.config.ts) and the
 * point after which no scripted event starts are derived from the phases that must fit after it.
 */

/** Spawn to the first worker's "shelfwatch running" (idle 2.4 s; 46 s seen at load ~25). */
export const STARTUP_DEADLINE_MS = 120_000;
/** From the first worker running until every target has its first committed snapshot. */
export const BASELINE_DEADLINE_MS = 60_000;
/**
 * How long a scripted change may take to show in a committed snapshot before the run calls it lost.
 * A target whose worker was killed mid-job waits for BullMQ's stalled-job check (a 30 s lock,
 * checked every 30 s: up to a minute), plus a restart (20-40 s at load ~25): 72 s was seen.
 */
export const OBSERVE_DEADLINE_MS = 120_000;
/** After the faults stop: until every expected alert is through and nothing is pending. */
export const SETTLE_DEADLINE_MS = 150_000;
/** SIGTERM to every worker until each has exited. */
export const STOP_DEADLINE_MS = 30_000;
/**
 * vitest's time for the run. An idle run takes about 160 s; on a loaded two-core machine a worker
 * takes 20-30 s to start instead of 2.4 s, and the events the kills delay took 210 s of chaos
 * where an idle run needs 135 s.
 */
export const CHAOS_TEST_TIMEOUT_MS = 660_000;
/**
 * No scripted event starts later than this after the test began: its observation, the settle and
 * the workers' stop must still fit in vitest's time (with half a minute for the figures and the
 * teardown), so a slow run ends with its figures and an "event not applied" failure, not a timeout.
 */
export const EVENTS_CUTOFF_MS =
  CHAOS_TEST_TIMEOUT_MS - OBSERVE_DEADLINE_MS - SETTLE_DEADLINE_MS - STOP_DEADLINE_MS - 30_000;
