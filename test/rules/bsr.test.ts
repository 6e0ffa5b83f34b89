import { describe, expect, it } from 'vitest';
import type { BookObservation } from '../../src/model/observation.ts';
import { bsrHistoryHoursNeeded, bsrWorse } from '../../src/rules/bsr.ts';
import type { BsrWorsenedRule } from '../../src/rules/config.ts';
import { evaluate } from '../../src/rules/engine.ts';
import { median } from '../../src/util/stats.ts';
import { book, HOUR, kinds, rule, run, T0 } from './helpers.ts';

const worse = (extra: object = {}) => rule({ id: 'bsr', kind: 'bsr_worsened', ...extra });
const removed = rule({ id: 'gone', kind: 'bsr_removed' });
const flat = (rank: number, hours = 24) => Array.from({ length: hours }, () => rank);

/**
 * Hourly polls: each book's history is the ranks of the polls before it (the last 24 of them
 * padded with the first rank), as the API would report.
 */
function hourly(ranks: (number | null)[]): BookObservation[] {
  const first = ranks.find((r) => r !== null) ?? 1;
  return ranks.map((rank, i) => {
    const history = [...flat(first), ...ranks.slice(0, i)].slice(-24);
    return book(T0 + i * HOUR, rank, history);
  });
}

describe('bsr_worsened maths', () => {
  const r = worse() as BsrWorsenedRule;
  it('is a ratio at every scale, with an absolute floor at the top', () => {
    // Near the top: doubling is big news, ten places is not.
    expect(bsrWorse(r, 50, 60)).toBe(false);
    expect(bsrWorse(r, 50, 100)).toBe(true);
    expect(bsrWorse(r, 10, 21)).toBe(true);
    expect(bsrWorse(r, 3, 7)).toBe(false); // 2.3× but only 4 places: below minRankChange
    // In the long tail the same absolute moves are noise, and even 400,000 places is not doubling.
    expect(bsrWorse(r, 500_000, 500_060)).toBe(false);
    expect(bsrWorse(r, 500_000, 900_000)).toBe(false);
    expect(bsrWorse(r, 500_000, 1_000_000)).toBe(true);
    // Getting better is never "worse".
    expect(bsrWorse(r, 500_000, 150_000)).toBe(false);
  });

  it('takes the median, so one odd hour does not move the baseline', () => {
    expect(median([50, 52, 900, 49, 51])).toBe(51);
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('tells the poller how much history to keep', () => {
    expect(bsrHistoryHoursNeeded([worse(), worse({ id: 'b2', baselineHours: 48 }), removed])).toBe(48);
    expect(bsrHistoryHoursNeeded([removed])).toBe(0);
  });
});

describe('bsr_worsened', () => {
  it('is silent on the baseline poll and fires once when the rank doubles against the 24h median', () => {
    const { perPoll } = run([worse()], hourly([50, 52, 110, 115, 120]));
    expect(perPoll.map((p) => p.length)).toEqual([0, 0, 1, 0, 0]);
    const alert = perPoll[2]?.[0];
    expect(alert?.title).toBe(
      'Best-seller rank of “The Teapot Murders” worsened to #110 from a 24h median of #50 (B0CJ4XQ2ZK, US)',
    );
    expect(alert?.facts).toMatchObject({ before: 50, after: 110, rankChange: 60 });
    expect(alert?.series?.at(-1)).toBe(110);
  });

  it('compares with the rolling median, not the last reading: one good hour does not set the bar', () => {
    // A sale lifts #500,000 to #150,000 for an hour; drifting back to #520,000 is not a drop.
    const { alerts } = run([worse()], hourly([500_000, 150_000, 520_000, 510_000]));
    expect(alerts).toEqual([]);
  });

  it('does not fire for noise at #50 nor at #500,000', () => {
    expect(run([worse()], hourly([50, 55, 48, 60, 52])).alerts).toEqual([]);
    expect(run([worse()], hourly([500_000, 560_000, 470_000, 640_000])).alerts).toEqual([]);
  });

  it('re-arms only back within baseline × (1 + rearmFactor), and sends resolved when asked', () => {
    const r = worse({ sendResolved: true });
    const { perPoll } = run(
      [r],
      [
        book(T0, 1000, flat(1000)),
        book(T0 + HOUR, 2500, flat(1000)),
        book(T0 + 2 * HOUR, 1600, flat(1000)),
        book(T0 + 3 * HOUR, 2400, flat(1000)),
        book(T0 + 4 * HOUR, 1400, flat(1000)),
      ],
    );
    expect(perPoll.map(kinds)).toEqual([[], ['bsr_worsened'], [], [], ['bsr_recovered']]);
    expect(perPoll[4]?.[0]).toMatchObject({
      status: 'resolved',
      facts: { before: 1000, after: 1400, lowPoint: 2500, downForMs: 3 * HOUR },
    });
    expect(perPoll[4]?.[0]?.title).toMatch(/\(B0CJ4XQ2ZK, US\) — was down to #2,500 for 3 h$/);
  });

  it('keeps the low point through the stored bytes', () => {
    const hours = [1000, 2500, 1600, 4100, 2400, 1400];
    const seq = hours.map((rank, h) => book(T0 + h * HOUR, rank, flat(1000)));
    const { perPoll } = run([worse({ sendResolved: true })], seq, undefined, { stored: true });
    expect(perPoll[5]?.[0]?.title).toMatch(/— was down to #4,100 for 4 h$/);
  });

  it('a drop that persists fires at a daily cadence too, though it fills most of the window by then', () => {
    // Polls 24 h apart; the rank doubled 4 h after the first: at the second poll 20 of the 24
    // hourly points are the worse rank, so the median now is the worse rank itself.
    const day = 24 * HOUR;
    const seq = [book(T0, 1000, flat(1000)), book(T0 + day, 3000, [...flat(1000, 4), ...flat(3000, 20)])];
    const { perPoll } = run([worse({ sendResolved: true })], seq);
    expect(perPoll.map(kinds)).toEqual([[], ['bsr_worsened']]);
    expect(perPoll[1]?.[0]?.title).toBe(
      'Best-seller rank of “The Teapot Murders” worsened to #3,000 from a 24h median of #1,000 (B0CJ4XQ2ZK, US)',
    );
    // It stays one alert while the rank stays there, and re-arms against the bar it broke.
    const later = [
      ...seq,
      book(T0 + 2 * day, 3100, flat(3000)),
      book(T0 + 3 * day, 1100, [...flat(3000, 4), ...flat(1100, 20)]),
    ];
    expect(run([worse({ sendResolved: true })], later).perPoll.map(kinds)).toEqual([
      [],
      ['bsr_worsened'],
      [],
      ['bsr_recovered'],
    ]);
  });

  it('waits `for` polls and repeats at the interval', () => {
    const seq = [0, 1, 2, 3, 4, 5].map((h) => book(T0 + h * HOUR, h === 0 ? 1000 : 3000, flat(1000)));
    expect(run([worse({ for: 2 })], seq).perPoll.map((p) => p.length)).toEqual([0, 0, 1, 0, 0, 0]);
    expect(run([worse({ repeatEvery: '2h' })], seq).perPoll.map((p) => p.length)).toEqual([0, 1, 0, 1, 0, 1]);
  });

  it('never treats a null rank as a drop, and ignores null points in the history', () => {
    const seq = [
      book(T0, 1000, flat(1000)),
      book(T0 + HOUR, null, flat(1000)),
      book(T0 + 2 * HOUR, 1100, [...flat(1000, 20), null, null, null, null]),
    ];
    expect(run([worse()], seq).alerts).toEqual([]);
  });
});

describe('bsr_removed / bsr_restored', () => {
  it('fires once when the rank is removed and always announces the restore', () => {
    const seq = [book(T0, 1834), book(T0 + HOUR, null), book(T0 + 2 * HOUR, null), book(T0 + 3 * HOUR, 2010)];
    const { perPoll } = run([removed], seq);
    expect(perPoll.map(kinds)).toEqual([[], ['bsr_removed'], [], ['bsr_restored']]);
    expect(perPoll[1]?.[0]?.title).toBe(
      'Amazon removed the best-seller rank of “The Teapot Murders” (was #1,834) (B0CJ4XQ2ZK, US)',
    );
    expect(perPoll[3]?.[0]).toMatchObject({
      status: 'resolved',
      facts: { before: 1834, after: 2010, downForMs: 2 * HOUR },
    });
    expect(perPoll[3]?.[0]?.title).toMatch(/\(B0CJ4XQ2ZK, US\) — removed for 2 h$/);
  });

  it('says nothing about a book that never had a rank, nor on a first poll without one', () => {
    expect(run([removed], [book(T0, null), book(T0 + HOUR, null)]).alerts).toEqual([]);
    // The first number is a baseline, not a restore.
    expect(run([removed], [book(T0, null), book(T0 + HOUR, 500)]).alerts).toEqual([]);
  });

  it('gives the same fingerprints when a poll is evaluated again', () => {
    const seq = [book(T0, 1834), book(T0 + HOUR, 1900)];
    const { state, last } = run([removed, worse()], seq);
    const next = book(T0 + 2 * HOUR, null);
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: next.observedAt };
    const a = evaluate(ctx, [removed], last, next, state);
    const b = evaluate(
      { ...ctx, nowMs: ctx.nowMs + 60_000 },
      [removed],
      last,
      { ...next, observedAt: next.observedAt + 60_000 },
      state,
    );
    expect(a.alerts).toHaveLength(1);
    expect(b.alerts.map((x) => x.fingerprint)).toEqual(a.alerts.map((x) => x.fingerprint));
  });
});
