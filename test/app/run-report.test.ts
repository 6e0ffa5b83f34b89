import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { logPlans, RunReporter } from '../../src/app/run-report.ts';
import type { Plan } from '../../src/budget/planner.ts';
import { createLogger } from '../../src/ops/logger.ts';

function capture() {
  const out = new PassThrough();
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  out.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  });
  return { logger: createLogger({ destination: out }), lines };
}

const plan = (fits: boolean, binding: Plan['binding'] = fits ? [] : ['month']): Plan => ({
  rows: [
    {
      id: 'a',
      kind: 'book',
      costPerPoll: 1,
      cadenceMs: 3_600_000,
      requestsPerMonth: 720,
      shareOfQuota: 0.01,
      overridden: false,
    },
    {
      id: 'b',
      kind: 'book',
      costPerPoll: 1,
      cadenceMs: 7_200_000,
      requestsPerMonth: 360,
      shareOfQuota: 0.01,
      overridden: false,
    },
    {
      id: 'c',
      kind: 'sales',
      costPerPoll: 1,
      cadenceMs: 21_600_000,
      requestsPerMonth: 120,
      shareOfQuota: 0.01,
      overridden: false,
    },
  ],
  plannableBudget: fits ? 90_000 : 900,
  projectedUse: 1_200,
  headroom: fits ? 88_800 : -300,
  fits,
  perMinutePeak: 3,
  stretch: 1,
  sustainedPerMinute: binding.includes('minute') ? 72.25 : 0.1,
  minuteCap: 54,
  perMinute: 60,
  reserveShare: 0.1,
  binding,
  warnings: fits ? [] : ['the plan needs 300 more requests'],
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('run report', () => {
  it('logs each workspace plan at start, and a plan that does not fit as a warning with its numbers', async () => {
    const { logger, lines } = capture();
    logPlans(
      logger,
      new Map([
        ['acme', plan(true)],
        ['tight', plan(false)],
      ]),
    );
    await tick();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [30, 'workspace acme: 3 targets, book every 1h–2h, sales every 6h'],
      [30, 'workspace tight: 3 targets, book every 1h–2h, sales every 6h'],
      [
        40,
        'workspace tight: the plan does NOT fit the month: 1,200 requests needed, 900 plannable; polls will stop at the ceiling (see "shelfwatch plan")',
      ],
    ]);
    expect(lines[2]).toMatchObject({ workspace: 'tight', projectedUse: 1_200, plannableBudget: 900 });
  });

  it('names the per-minute limit, with its figures, when that is what does not fit', async () => {
    const { logger, lines } = capture();
    logPlans(logger, new Map([['fast', { ...plan(false, ['minute']), plannableBudget: 90_000 }]]));
    await tick();
    expect(lines[1]?.msg).toBe(
      'workspace fast: the plan does NOT fit the per-minute limit: 72.3 requests a minute needed on average, 54.0 plannable (60 a minute less the 10% reserve kept for interactive commands); the budget gate delays polls (see "shelfwatch plan")',
    );
  });

  it('says "baselines stored" once every target has one, the first alerts, then one line per interval', async () => {
    const { logger, lines } = capture();
    const poll = new EventEmitter();
    const deliver = new EventEmitter();
    const reporter = new RunReporter({
      logger,
      targets: new Map([['acme', 2]]),
      monthUse: async () => new Map([['acme', { used: 1234, limit: 100_000 }]]),
      everyMs: 600_000,
    });
    reporter.attach(poll, deliver);
    const job = (targetId: string) => ({ data: { workspace: 'acme', targetId } });
    poll.emit('completed', job('t1'), { status: 'ok', alerts: 0, baseline: true });
    poll.emit('completed', job('t1'), { status: 'ok', alerts: 0, baseline: true });
    await tick();
    expect(lines.map((l) => l.msg)).toEqual([]);
    poll.emit('completed', job('t2'), { status: 'ok', alerts: 0, baseline: true });
    poll.emit('completed', job('t2'), { status: 'ok', alerts: 2, baseline: false });
    poll.emit('completed', job('t1'), { status: 'error', alerts: 0, reason: 'x' });
    poll.emit('failed', job('t1'), new Error('boom'));
    deliver.emit('completed', { name: 'flush', data: { channelId: 'team' } }, { status: 'sent', alerts: 2 });
    deliver.emit('completed', { name: 'flush', data: { channelId: 'team' } }, { status: 'sent', alerts: 1 });
    await reporter.report(600_000);
    reporter.stop();
    await tick();
    expect(lines.map((l) => l.msg)).toEqual([
      'baselines stored',
      'first alerts raised',
      'first alert message sent',
      'last 10m: 4 polls ok, 2 failed, 2 alerts raised, 2 messages sent; requests this month: acme 1,234 of 100,000',
    ]);
    expect(lines[0]).toMatchObject({ level: 30, workspace: 'acme', targets: 2 });
    await reporter.report(600_000);
    await tick();
    expect(lines.at(-1)?.msg).toMatch(/^last 10m: 0 polls ok, 0 failed/);
  });
});
