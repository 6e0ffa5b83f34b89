import { describe, expect, it } from 'vitest';
import type { Alert } from '../../src/model/alert.ts';
import { defaultRules } from '../../src/rules/config.ts';
import { evaluateSourceHealth, type OutcomeStatus, type SourceHealthState } from '../../src/rules/engine.ts';
import { evaluateWorkspacePause, evaluateWorkspaceRecovery } from '../../src/rules/source-health.ts';
import { HOUR, kinds, rule, T0 } from './helpers.ts';

const health = rule({ id: 'health', kind: 'source_health' });

function stream(statuses: OutcomeStatus[], rules = [health], targetId = 'book:B0CJ4XQ2ZK:US') {
  let state: SourceHealthState | undefined;
  const perPoll: Alert[][] = [];
  statuses.forEach((status, i) => {
    const ctx = { workspace: 'ws', targetId, nowMs: T0 + i * HOUR };
    const result = evaluateSourceHealth(ctx, rules, status, state, { error: 'HTTP 503 unavailable' });
    perPoll.push(result.alerts);
    state = result.state;
  });
  return { perPoll, alerts: perPoll.flat(), state };
}

describe('source_health', () => {
  it('N failures in a row raise one alert; more failures raise none; the first ok raises one recovery', () => {
    const { perPoll } = stream(['ok', 'error', 'error', 'error', 'error', 'error', 'ok', 'ok']);
    expect(perPoll.map(kinds)).toEqual([[], [], [], ['source_health'], [], [], ['source_recovered'], []]);
    const [down, up] = perPoll.flat();
    expect(down).toMatchObject({
      severity: 'critical',
      status: 'firing',
      subject: { targetId: 'book:B0CJ4XQ2ZK:US' },
    });
    expect(down?.title).toBe(
      'Polling book:B0CJ4XQ2ZK:US failed 3 times in a row since 2026-11-21T01:00:00Z (last: HTTP 503 unavailable)',
    );
    expect(up).toMatchObject({ status: 'resolved', facts: { failedPolls: 5, downForMs: 5 * HOUR } });
  });

  it("names a book's target by its title first when the poller knows it", () => {
    const books = new Map([['B0CJ4XQ2ZK|US', { title: 'Tide Lines', author: 'Ada Quill' }]]);
    let state: SourceHealthState | undefined;
    const alerts: Alert[] = [];
    for (const [i, status] of (['error', 'error', 'error', 'ok'] as const).entries()) {
      const ctx = { workspace: 'ws', targetId: 'book/B0CJ4XQ2ZK/US', nowMs: T0 + i * HOUR, books };
      const result = evaluateSourceHealth(ctx, [health], status, state, { error: 'HTTP 503' });
      alerts.push(...result.alerts);
      state = result.state;
    }
    expect(alerts.map((a) => a.title.slice(0, 46))).toEqual([
      'Polling “Tide Lines” (book/B0CJ4XQ2ZK/US) fail',
      'Polling “Tide Lines” (book/B0CJ4XQ2ZK/US) work',
    ]);
    for (const alert of alerts)
      expect(alert.facts).toMatchObject({ bookTitle: 'Tide Lines', author: 'Ada Quill' });
  });

  it('a streak shorter than N raises nothing, and ok resets the count', () => {
    expect(stream(['error', 'error', 'ok', 'error', 'error', 'ok']).alerts).toEqual([]);
  });

  it('counts no_data as a failure unless told not to', () => {
    expect(kinds(stream(['no_data', 'error', 'no_data']).alerts)).toEqual(['source_health']);
    const strict = rule({ id: 'h', kind: 'source_health', countNoData: false });
    expect(stream(['no_data', 'error', 'no_data', 'error'], [strict]).alerts).toEqual([]);
  });

  it('a new streak is a new fingerprint; re-running a poll gives the same one', () => {
    const { alerts } = stream(['error', 'error', 'error', 'ok', 'error', 'error', 'error']);
    expect(kinds(alerts)).toEqual(['source_health', 'source_recovered', 'source_health']);
    expect(new Set(alerts.map((a) => a.fingerprint)).size).toBe(3);
    const before = stream(['error', 'error']).state;
    const ctx = { workspace: 'ws', targetId: 'book:B0CJ4XQ2ZK:US', nowMs: T0 + 2 * HOUR };
    const a = evaluateSourceHealth(ctx, [health], 'error', before);
    const b = evaluateSourceHealth({ ...ctx, nowMs: ctx.nowMs + 30_000 }, [health], 'error', before);
    expect(a.alerts[0]?.fingerprint).toBe(b.alerts[0]?.fingerprint);
  });

  it('honours targets, and ignores rules of other kinds', () => {
    const only = rule({ id: 'h', kind: 'source_health', targets: ['sales:US'] });
    expect(stream(['error', 'error', 'error'], [only]).alerts).toEqual([]);
    expect(stream(['error', 'error', 'error'], [only], 'sales:US').alerts).toHaveLength(1);
    const { alerts, state } = stream(['error', 'error', 'error'], defaultRules());
    expect(kinds(alerts)).toEqual(['source_health']);
    expect(Object.keys(state?.rules ?? {})).toEqual(['source-health']);
  });
});

describe('workspace pauses', () => {
  const soon = rule({ id: 'soon', kind: 'source_health', pausedFor: '10m', severity: 'warning' });
  const late = rule({ id: 'late', kind: 'source_health', pausedFor: '1h', targets: ['book:B0CJ4XQ2ZK:US'] });
  const episode = (reason: string, lastsMs: number, alertedRuleIds: string[] = []) => ({
    sinceMs: T0,
    untilMs: T0 + lastsMs,
    reason,
    alertedRuleIds,
  });

  it('a 429 pause alerts from each rule whose pausedFor it lasts, once; recovery from those only', () => {
    const twentyMinutes = episode('rate_limited', 20 * 60_000);
    const first = evaluateWorkspacePause('ws', [soon, late], twentyMinutes, T0);
    expect(first.alertedRuleIds).toEqual(['soon']);
    expect(first.alerts[0]).toMatchObject({ subject: { scope: 'workspace' }, severity: 'warning' });
    // Already alerted by `soon`; `late` is due once the episode is an hour old.
    const later = { ...twentyMinutes, alertedRuleIds: ['soon'] };
    expect(evaluateWorkspacePause('ws', [soon, late], later, T0 + 30 * 60_000).alerts).toEqual([]);
    const hourOld = evaluateWorkspacePause('ws', [soon, late], later, T0 + HOUR);
    expect(hourOld.alertedRuleIds).toEqual(['late']);
    expect(hourOld.alerts[0]?.fingerprint).not.toBe(first.alerts[0]?.fingerprint);
    const recovered = evaluateWorkspaceRecovery('ws', [soon, late], later, T0 + HOUR);
    expect(recovered.map((a) => [a.ruleId, a.kind, a.status])).toEqual([
      ['soon', 'source_recovered', 'resolved'],
    ]);
  });

  it('a refused key alerts at once, critical, whatever pausedFor says', () => {
    const { alerts } = evaluateWorkspacePause('ws', [soon, late], episode('unauthorized', 60_000), T0);
    expect(alerts.map((a) => [a.ruleId, a.severity])).toEqual([
      ['soon', 'critical'],
      ['late', 'critical'],
    ]);
  });
});
