/** The reconcile after a due run: at the report's retry time, once, the earliest time winning. */
import { expect, it } from 'vitest';
import { ReconcileFollowUp } from '../../src/app/reconcile-follow-up.ts';
import { idleReport } from '../../src/jobs/poll-schedulers.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { waitFor } from '../helpers/wait.ts';

const deferredAt = (retryAtMs: number) => ({ ...idleReport(true), deferred: 1, retryAtMs });

it('reconciles once at the earliest retry time, never for a report that deferred nothing', async () => {
  const calls: number[] = [];
  const followUp = new ReconcileFollowUp(async () => void calls.push(Date.now()), silentLogger());
  followUp.after(idleReport(true));
  const start = Date.now();
  followUp.after(deferredAt(start + 400));
  followUp.after(deferredAt(start + 100));
  followUp.after(deferredAt(start + 300));
  await waitFor('the follow-up reconcile', () => calls.length > 0, 2_000, 10);
  expect((calls[0] ?? 0) - start).toBeGreaterThanOrEqual(90);
  expect((calls[0] ?? 0) - start).toBeLessThan(300);
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(calls).toHaveLength(1);
});

it('plans nothing once stopped', async () => {
  let called = false;
  const followUp = new ReconcileFollowUp(async () => {
    called = true;
  }, silentLogger());
  followUp.after(deferredAt(Date.now() + 20));
  followUp.stop();
  followUp.after(deferredAt(Date.now() + 20));
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(called).toBe(false);
});
