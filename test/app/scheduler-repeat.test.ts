import { describe, expect, it } from 'vitest';
import { KEEP_SLOWER_SHARE, repeatFor } from '../../src/jobs/schedulers.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
// Not a multiple of any cadence below, so no start is nudged off a zero offset by accident.
const NOW = Date.UTC(2026, 10, 14, 12, 0, 0, 7);

/** A scheduler that last ran `agoMs` before NOW at `everyMs`: BullMQ's `next` is that run + every. */
const ran = (everyMs: number, agoMs: number) => ({
  every: everyMs,
  next: NOW - agoMs + everyMs,
  iterationCount: 5,
});

describe('repeatFor: new schedulers', () => {
  it('starts a new scheduler after its first-run delay, with the offset of that start', () => {
    const decision = repeatFor({ every: HOUR, firstRunDelayMs: 90_000 }, undefined, NOW);
    expect(decision).toEqual({
      changed: true,
      reason: 'new',
      repeat: { every: HOUR, startDate: NOW + 90_000, offset: (NOW + 90_000) % HOUR },
    });
  });

  it('starts at once without a delay, and treats a scheduler without `every` or `next` as new', () => {
    expect(repeatFor({ every: HOUR }, undefined, NOW)).toEqual({
      changed: true,
      reason: 'new',
      repeat: { every: HOUR },
    });
    const cron = { pattern: '0 8 * * *', tz: 'UTC', next: NOW + HOUR };
    expect(repeatFor({ every: HOUR, firstRunDelayMs: 1_000 }, cron, NOW).reason).toBe('new');
    expect(repeatFor({ every: HOUR, firstRunDelayMs: 1_000 }, { every: HOUR }, NOW).reason).toBe('new');
  });

  it('never passes an offset of 0, which BullMQ reads as "none" (the start moves 1 ms)', () => {
    const aligned = Math.ceil(NOW / HOUR) * HOUR;
    const decision = repeatFor({ every: HOUR, firstRunDelayMs: aligned - NOW }, undefined, NOW);
    expect(decision.repeat).toEqual({ every: HOUR, startDate: aligned + 1, offset: 1 });
  });
});

describe('repeatFor: a changed cadence keeps the phase', () => {
  it('a longer cadence: the next run is the last one + the new cadence, later than the pending one', () => {
    const have = ran(HOUR, 20 * MIN);
    const decision = repeatFor({ every: 2 * HOUR, firstRunDelayMs: 60_000 }, have, NOW);
    const next = NOW - 20 * MIN + 2 * HOUR;
    expect(decision).toEqual({
      changed: true,
      reason: 'phase',
      repeat: { every: 2 * HOUR, startDate: next, offset: next % (2 * HOUR) },
    });
    expect(next).toBeGreaterThan(have.next);
  });

  it('a shorter cadence not yet due: the last run + the new cadence, not now + the spread', () => {
    const decision = repeatFor({ every: 30 * MIN, firstRunDelayMs: 60_000 }, ran(HOUR, 20 * MIN), NOW);
    expect(decision).toMatchObject({
      changed: true,
      reason: 'phase',
      repeat: { every: 30 * MIN, startDate: NOW + 10 * MIN },
    });
  });

  it('a shorter cadence already past due: within the first-run spread, never before now', () => {
    const decision = repeatFor({ every: 30 * MIN, firstRunDelayMs: 45_000 }, ran(2 * HOUR, 50 * MIN), NOW);
    expect(decision).toMatchObject({
      changed: true,
      reason: 'overdue',
      repeat: { every: 30 * MIN, startDate: NOW + 45_000 },
    });
    const atOnce = repeatFor({ every: 30 * MIN }, ran(2 * HOUR, 50 * MIN), NOW);
    expect(atOnce).toMatchObject({ reason: 'overdue', repeat: { every: 30 * MIN, startDate: NOW } });
  });

  it('a scheduler that has not run yet keeps its pending first run', () => {
    const pending = { every: HOUR, next: NOW + 3 * MIN, iterationCount: 1 };
    expect(repeatFor({ every: 3 * HOUR, firstRunDelayMs: 60_000 }, pending, NOW)).toMatchObject({
      reason: 'phase',
      repeat: { every: 3 * HOUR, startDate: NOW + 3 * MIN },
    });
    const waiting = { every: HOUR, next: NOW - 2 * MIN, iterationCount: 1 };
    expect(repeatFor({ every: 3 * HOUR, firstRunDelayMs: 60_000 }, waiting, NOW)).toMatchObject({
      reason: 'overdue',
      repeat: { startDate: NOW + 60_000 },
    });
  });

  it('a faster plan is applied even by 1% (a kept faster cadence would overspend)', () => {
    const have = ran(100 * MIN, 10 * MIN);
    const decision = repeatFor({ every: 101 * MIN, firstRunDelayMs: 60_000 }, have, NOW);
    expect(decision).toMatchObject({
      changed: true,
      reason: 'phase',
      repeat: { startDate: have.next + MIN },
    });
  });
});

describe('repeatFor: hysteresis', () => {
  it('leaves a scheduler up to 5% slower than the plan alone, with its own cadence', () => {
    const want = { every: 100 * MIN, firstRunDelayMs: 60_000 };
    for (const slower of [100, 101, 104, 105]) {
      expect(repeatFor(want, ran(slower * MIN, 10 * MIN), NOW)).toEqual({
        changed: false,
        reason: slower === 100 ? 'same' : 'in-band',
        repeat: { every: slower * MIN },
      });
    }
    expect(KEEP_SLOWER_SHARE).toBe(0.05);
    expect(repeatFor(want, ran(106 * MIN, 10 * MIN), NOW)).toMatchObject({ changed: true, reason: 'phase' });
  });

  it('applies any change to an exact cadence (a config override)', () => {
    const decision = repeatFor({ every: HOUR, firstRunDelayMs: 0, exact: true }, ran(62 * MIN, MIN), NOW);
    expect(decision).toMatchObject({ changed: true, reason: 'phase', repeat: { every: HOUR } });
  });
});

describe('repeatFor: cron schedulers', () => {
  it('changes a cron only when its pattern or zone does', () => {
    const want = { pattern: '0 8 * * *', tz: 'Europe/Berlin' };
    expect(repeatFor(want, undefined, NOW)).toEqual({ changed: true, reason: 'new', repeat: want });
    expect(repeatFor(want, { ...want, next: NOW + HOUR }, NOW)).toMatchObject({
      changed: false,
      reason: 'same',
    });
    expect(repeatFor(want, { pattern: '0 9 * * *', tz: 'Europe/Berlin' }, NOW)).toMatchObject({
      changed: true,
      reason: 'pattern',
    });
    expect(repeatFor(want, { pattern: '0 8 * * *', tz: 'UTC' }, NOW).changed).toBe(true);
  });
});

describe('repeatFor: a run due about now', () => {
  it('leaves the cadence change to the next reconcile, since that run may be starting', () => {
    for (const dueIn of [-59_000, -1_000, 0, 4_000]) {
      const have = { every: HOUR, next: NOW + dueIn, iterationCount: 5 };
      expect(repeatFor({ every: 2 * HOUR, firstRunDelayMs: 0 }, have, NOW)).toEqual({
        changed: false,
        reason: 'due',
        repeat: { every: HOUR },
      });
    }
    // Further off on either side, the change is made.
    const later = { every: HOUR, next: NOW + 6_000, iterationCount: 5 };
    expect(repeatFor({ every: 2 * HOUR, firstRunDelayMs: 0 }, later, NOW).reason).toBe('phase');
    const stuck = { every: HOUR, next: NOW - 61_000, iterationCount: 5 };
    expect(repeatFor({ every: 2 * HOUR, firstRunDelayMs: 0 }, stuck, NOW).changed).toBe(true);
  });
});
