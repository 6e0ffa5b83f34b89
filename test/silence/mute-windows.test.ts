/**
 * Recurring mute windows from the config: strict parsing with did-you-mean, when a window is open
 * (time zone, weekdays, dates, wrapping midnight, a DST night), and the gate silencing through them.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import type { MuteWindowConfig } from '../../src/config/mute-windows.ts';
import { SilenceGate } from '../../src/silence/gate.ts';
import { muteWindowOpen } from '../../src/silence/mute-windows.ts';
import { SilenceStore } from '../../src/silence/store.ts';
import { problemAt, validRaw } from '../config/helpers.ts';
import { makeAlert } from '../deliver/pipeline-harness.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

function parseWindows(windows: unknown[]) {
  return parseConfig({ ...validRaw(), muteWindows: windows });
}

function windowsOf(windows: unknown[]): MuteWindowConfig[] {
  const result = parseWindows(windows);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config.muteWindows;
}

describe('muteWindows in the config', () => {
  it('refuses unknown keys (with a suggestion), a window with no matcher, and until before from', () => {
    const result = parseWindows([
      { name: 'weekend', days: ['sat'], match: { severty: ['info'] } },
      { name: 'all', match: {} },
      { name: 'launch', from: '2026-12-07', until: '2026-12-01', match: { severity: ['info'] } },
      { name: 'other', match: { workspace: 'acmee' } },
    ]);
    if (result.ok) throw new Error('expected problems');
    expect(problemAt(result.problems, 'muteWindows[0].match.severty').hint).toBe('did you mean "severity"?');
    expect(problemAt(result.problems, 'muteWindows[1].match').message).toMatch(/at least one matcher/);
    expect(problemAt(result.problems, 'muteWindows[2].until').message).toMatch(/on or after "from"/);
    expect(problemAt(result.problems, 'muteWindows[3].match.workspace').hint).toBe('did you mean "acme"?');
  });
});

describe('when a window is open', () => {
  const [nights, launch] = windowsOf([
    {
      name: 'friday-nights',
      timeZone: 'Europe/Berlin',
      days: ['fri'],
      start: '22:00',
      end: '06:00',
      match: { kind: ['review_new'] },
    },
    {
      name: 'launch-week',
      timeZone: 'America/New_York',
      from: '2026-12-01',
      until: '2026-12-07',
      match: { severity: ['info', 'warning'] },
      reason: 'launch week: only critical',
    },
  ]);
  if (nights === undefined || launch === undefined) throw new Error('windows missing');
  const at = (iso: string) => Date.parse(iso);

  it('a weekly window that wraps midnight belongs to the day it opens on, in its time zone', () => {
    // Berlin is UTC+1 in November: Friday 27 Nov 2026 22:00 local = 21:00 UTC.
    expect(muteWindowOpen(nights, at('2026-11-27T20:59:00Z'))).toBe(false);
    expect(muteWindowOpen(nights, at('2026-11-27T21:00:00Z'))).toBe(true);
    expect(muteWindowOpen(nights, at('2026-11-28T04:59:00Z'))).toBe(true); // Sat 05:59 local
    expect(muteWindowOpen(nights, at('2026-11-28T05:00:00Z'))).toBe(false); // Sat 06:00 local
    expect(muteWindowOpen(nights, at('2026-11-28T21:30:00Z'))).toBe(false); // Sat 22:30 local
    expect(muteWindowOpen(nights, at('2026-11-26T23:30:00Z'))).toBe(false); // Fri 00:30: Thursday's night
  });

  it('keeps local times across a daylight-saving change', () => {
    // Friday 23 Oct 2026 Berlin is UTC+2; Saturday night 24→25 Oct the clocks go back.
    expect(muteWindowOpen(nights, at('2026-10-23T20:00:00Z'))).toBe(true); // 22:00 CEST
    expect(muteWindowOpen(nights, at('2026-10-23T19:59:00Z'))).toBe(false);
  });

  it('a date range is whole local days, inclusive', () => {
    expect(muteWindowOpen(launch, at('2026-12-01T04:59:00Z'))).toBe(false); // 30 Nov 23:59 New York
    expect(muteWindowOpen(launch, at('2026-12-01T05:00:00Z'))).toBe(true);
    expect(muteWindowOpen(launch, at('2026-12-08T04:59:00Z'))).toBe(true); // 7 Dec 23:59
    expect(muteWindowOpen(launch, at('2026-12-08T05:00:00Z'))).toBe(false);
  });

  it('the gate silences through an open window: "only critical" lets critical alerts through', async () => {
    const prefix = testPrefix('mute-gate');
    const store = new SilenceStore(testRedis(prefix), prefix);
    const counted: number[] = [];
    const gate = new SilenceGate(
      store,
      [launch],
      () => undefined,
      (_, n) => counted.push(n),
    );
    const info = makeAlert(1, { severity: 'info' });
    const critical = makeAlert(2, { severity: 'critical' });
    const during = at('2026-12-03T12:00:00Z');
    expect(await gate.partition([info, critical], 'mail', during)).toEqual([critical]);
    expect(counted).toEqual([1]);
    const kept = await store.silencedBetween(0, during + 1);
    expect(kept.map((r) => [r.alert.fingerprint, r.silenceId, r.reason])).toEqual([
      [info.fingerprint, 'mute:launch-week', 'launch week: only critical'],
    ]);
    expect(await gate.partition([info, critical], 'mail', at('2026-12-09T12:00:00Z'))).toEqual([
      info,
      critical,
    ]);
  });
});
