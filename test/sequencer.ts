/**
 * The order files start in: the long ones first, so the run does not end on one of them with
 * the other worker idle. vitest's own order puts files it has timed (its cache, in node_modules)
 * longest first, but a clean clone has no cache and gets the largest files first, which is not
 * the same: the clock-skew test is short to read and runs a minute of real time. So the files
 * measured long go first, longest first, and the rest keep vitest's order (cached durations when
 * warm, sizes when cold).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Roughly how long each file takes, in seconds; only their order matters. The first seven are
 * alone on an idle machine (2026-11-28), mostly real time waited (a plan's minute, a sample of
 * polls, Chromium), so they overlap well with busy files; the others are from one shared run at
 * load ~20, divided by 2.5 (about what that load does to a file that computes).
 */
export const LONG_FILES: Readonly<Record<string, number>> = {
  // Both measured at load ~13 on 2026-11-28 (they waited 75 and 120 s of fixed time before):
  // most of it is real time waited, a window's turn and a sample of polls.
  'test/poll/multi-worker-budget.test.ts': 80,
  'test/reliability/clock-skew.test.ts': 58,
  'test/deliver/email-browser.test.ts': 75,
  'test/reliability/redis-full.test.ts': 60,
  'test/tools/demo.test.ts': 60,
  'test/revisions/live-processes.test.ts': 55,
  'test/budget/budget-scenarios.test.ts': 47,
  'test/reliability/api-hostile-lists.test.ts': 50,
  'test/walls/boundaries.test.ts': 40,
  'test/cli/console-token.test.ts': 37,
  'test/reliability/many-workers.test.ts': 26,
  'test/console/browser.test.ts': 25,
  'test/reliability/cli-hostile.test.ts': 18,
  'test/app/redis-outage.test.ts': 15,
  'test/digest/kill-resend.test.ts': 15,
  'test/deliver/pipeline.test.ts': 14,
  'test/reliability/flushall.test.ts': 11,
  'test/console/browser-config.test.ts': 10,
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const seconds = (spec: TestSpecification) =>
      LONG_FILES[relative(this.ctx.config.root, spec.moduleId).replaceAll('\\', '/')] ?? 0;
    // Array.prototype.sort is stable: files of equal weight keep vitest's order.
    return ordered.sort((a, b) => seconds(b) - seconds(a));
  }
}
