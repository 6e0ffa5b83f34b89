/**
 * Missing job schedulers are reconciled at every check but warned about once per stretch: a
 * scheduler that can never be created must not log a warning every 30 s.
 */
import { expect, it } from 'vitest';
import { ScheduleWatch } from '../../src/app/schedule-watch.ts';
import { capturingLogger } from '../helpers/log-lines.ts';

it('warns once per stretch of missing schedulers, reconciling at every check', async () => {
  const { logger, lines } = capturingLogger();
  let found = 2;
  let reconciles = 0;
  const watch = new ScheduleWatch({
    sources: [{ queue: 'poll', count: async () => found, wanted: () => 3 }],
    reconcile: async () => {
      reconciles += 1;
    },
    logger,
  });
  const warnings = () => lines.filter((l) => l.level === 40).map((l) => l.msg);

  for (let i = 0; i < 3; i++) await watch.check();
  expect(reconciles).toBe(3);
  expect(warnings()).toEqual(['job schedulers missing in Redis; reconciling now']);

  found = 3;
  await watch.check();
  expect(lines.at(-1)?.msg).toBe('job schedulers complete again');
  found = 1;
  await watch.check();
  await watch.check();
  expect(warnings()).toHaveLength(2);
});
