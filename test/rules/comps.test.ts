import { describe, expect, it } from 'vitest';
import type { BookObservation } from '../../src/model/observation.ts';
import {
  compAhead,
  compBehind,
  compMarginOf,
  DEFAULT_COMP_MARGIN,
  MAX_COMPS_JUDGED,
} from '../../src/rules/comps.ts';
import { book, HOUR, kinds, rule, run, T0 } from './helpers.ts';

const COMP = 'B0COMP0001';
const overtook = (extra: object = {}) => rule({ id: 'comps', kind: 'comp_overtook', margin: 0.1, ...extra });

/** One poll per entry: the book at #1,000 and the comp at `rank`; undefined lists no comps at all. */
function polls(compRanks: (number | null | undefined)[], bookRank = 1000): BookObservation[] {
  return compRanks.map((rank, i) =>
    book(T0 + i * HOUR, bookRank, [], {
      ...(rank === undefined ? {} : { compTitles: [{ asin: COMP, title: 'Rival Tea', bsr: rank }] }),
    }),
  );
}

describe('comp_overtook', () => {
  it('uses a band: ahead and behind are both by the margin', () => {
    expect(compAhead(0.95, 0.1)).toBe(false);
    expect(compAhead(0.9, 0.1)).toBe(true);
    expect(compAhead(1 / 1.1, 0.1)).toBe(true);
    expect(compBehind(1.09, 0.1)).toBe(false);
    expect(compBehind(1.1, 0.1)).toBe(true);
  });

  it('fires once when a comp moves ahead by the margin, and once when it falls behind again', () => {
    // 1,200 behind → 950 (inside the band) → 850 (ahead by > 10%) → 880 → 1,050 (band) → 1,150 (behind).
    const { perPoll } = run([overtook()], polls([1200, 950, 850, 880, 1050, 1150, 1160]), undefined, {
      stored: true,
    });
    expect(perPoll.map(kinds)).toEqual([[], [], ['comp_overtook'], [], [], ['comp_fell_behind'], []]);
    const alert = perPoll[2]?.[0];
    expect(alert?.title).toBe(
      'Comp title “Rival Tea” moved ahead of “The Teapot Murders”: #850 against #1,000 (B0CJ4XQ2ZK, US)',
    );
    expect(alert?.subject).toEqual({ asin: 'B0CJ4XQ2ZK', marketplace: 'US', compAsin: COMP });
    expect(alert?.facts).toMatchObject({ compBsr: 850, bookBsr: 1000, compTitle: 'Rival Tea' });
    expect(perPoll[5]?.[0]?.status).toBe('resolved');
  });

  it('is silent on the baseline poll even when the comp is already ahead', () => {
    const { alerts } = run([overtook()], polls([500, 400, 600, 1500]));
    // Ahead from the start is not news; falling behind afterwards is.
    expect(kinds(alerts)).toEqual(['comp_fell_behind']);
  });

  it('treats an empty comp list as no data: nothing fires, and the standing is kept', () => {
    const { perPoll } = run([overtook()], polls([1200, undefined, undefined, 850, undefined, 840]));
    expect(perPoll.map(kinds)).toEqual([[], [], [], ['comp_overtook'], [], []]);
  });

  it('does not alert for a comp new to the list, nor when a rank is missing', () => {
    const first = polls([undefined, 500, null, 480]);
    expect(run([overtook()], first).alerts).toEqual([]);
    // The book losing its rank is no reading either.
    const bookGone = [
      ...polls([1200]),
      ...polls([850], 0).map((b) => ({ ...b, bsr: null, observedAt: T0 + HOUR })),
    ];
    expect(run([overtook()], bookGone).alerts).toEqual([]);
  });

  it('waits `for` polls and honours the comps filter and sendResolved: false', () => {
    expect(kinds(run([overtook({ for: 2 })], polls([1200, 850, 850])).alerts)).toEqual(['comp_overtook']);
    expect(run([overtook({ comps: ['B0OTHER001'] })], polls([1200, 850])).alerts).toEqual([]);
    expect(kinds(run([overtook({ sendResolved: false })], polls([1200, 850, 1500])).alerts)).toEqual([
      'comp_overtook',
    ]);
  });

  it('judges at most MAX_COMPS_JUDGED comps a book, so the rule state stays small', () => {
    const many = (at: number, rank: number) =>
      book(at, 1000, [], {
        compTitles: Array.from({ length: MAX_COMPS_JUDGED + 30 }, (_, i) => ({
          asin: `B0MANY${String(i).padStart(4, '0')}`,
          title: `Comp ${i}`,
          bsr: rank,
        })),
      });
    const { alerts, state } = run([overtook()], [many(T0, 1200), many(T0 + HOUR, 850)]);
    expect(alerts).toHaveLength(MAX_COMPS_JUDGED);
    expect(Object.keys(state?.conditions ?? {})).toHaveLength(MAX_COMPS_JUDGED);
  });

  it('gives the same fingerprint when the same poll is judged again', () => {
    const observations = polls([1200, 850]);
    const a = run([overtook()], observations).alerts;
    const b = run([overtook()], observations).alerts;
    expect(a.map((x) => x.fingerprint)).toEqual(b.map((x) => x.fingerprint));
  });

  it("gives a book's comps the margin of the first rule covering it, else the default", () => {
    const rules = [
      { kind: 'bsr_worsened', margin: 0.9 },
      overtook({ id: 'other', books: ['B0OTHER001'], margin: 0.5 }),
      overtook({ id: 'de', marketplaces: ['DE'], margin: 0.3 }),
      overtook({ id: 'all', margin: 0.2 }),
    ];
    expect(compMarginOf(rules, 'B0BOOK0001', 'DE')).toBe(0.3);
    expect(compMarginOf(rules, 'B0BOOK0001', 'US')).toBe(0.2);
    expect(compMarginOf(rules.slice(0, 2), 'B0BOOK0001', 'US')).toBe(DEFAULT_COMP_MARGIN);
    expect(compMarginOf(rules.slice(0, 2), 'B0OTHER001', 'US')).toBe(0.5);
  });
});
