/**
 * The order files start in: the long ones first, so the run does not end on one of them with
 * a worker idle. vitest's own order puts files it has timed (its cache, in node_modules)
 * longest first, but a clean clone has no cache and gets the largest files first, which is not
 * the same: the clock-skew test is short to read and runs a minute of real time. So the files
 * measured long go first, longest first, and the rest keep vitest's order (cached durations when
 * warm, sizes when cold).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Roughly how long each file takes, in seconds; only their order matters. Measured in one whole
 * run with four files at once (2026-11-28, vitest --maxWorkers=4, load ~10). The first ones mostly
 * wait on real time (a plan's window turning, a sample of polls, locks expiring, processes
 * starting), so they go first and overlap with the files that compute.
 */
export const LONG_FILES: Readonly<Record<string, number>> = {
  'test/poll/multi-worker-budget.test.ts': 78,
  'test/reliability/redis-full.test.ts': 49,
  'test/reliability/clock-skew.test.ts': 44,
  'test/reliability/many-workers.test.ts': 35,
  'test/digest/kill-resend.test.ts': 33,
  'test/budget/budget-scenarios.test.ts': 29,
  'test/tools/demo.test.ts': 26,
  'test/console/browser.test.ts': 24,
  'test/revisions/live-processes.test.ts': 21,
  'test/walls/boundaries.test.ts': 19,
  'test/deliver/pipeline.test.ts': 19,
  'test/reliability/flushall.test.ts': 16,
  'test/reliability/cli-hostile.test.ts': 16,
  'test/reliability/api-hostile-lists.test.ts': 14,
  'test/app/redis-outage.test.ts': 12,
  'test/cli/console-token.test.ts': 10,
  'test/rules/keyword-equivalence.test.ts': 9,
  'test/app/shutdown.test.ts': 9,
  'test/reliability/api-hostile-transport.test.ts': 9,
  'test/console/browser-config.test.ts': 9,
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
