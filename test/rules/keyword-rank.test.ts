import { describe, expect, it } from 'vitest';
import { conditionsOf, evaluate } from '../../src/rules/engine.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { DAY, HOUR, keywords, kinds, rule, run, T0 } from './helpers.ts';

const drop = (extra: object = {}) =>
  rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, ...extra });
/** One poll an hour of the keyword "cozy mystery" with these ranks. */
const polls = (ranks: (number | null)[], key = 'cozy mystery') =>
  ranks.map((rank, i) => keywords(T0 + i * HOUR, { [key]: rank }));

describe('keyword_rank_drop', () => {
  it('stays silent on the baseline poll, however bad the rank', () => {
    const { alerts, state } = run([drop()], polls([90]));
    expect(alerts).toEqual([]);
    expect(Object.values(state === undefined ? {} : conditionsOf(state))).toMatchObject([
      { phase: 'clear', baseline: 90 },
    ]);
  });

  it('fires once with a plain, specific title and before/after facts', () => {
    const { perPoll } = run([drop()], polls([4, 19, 19]));
    expect(perPoll.map((p) => p.length)).toEqual([0, 1, 0]);
    const alert = perPoll[1]?.[0];
    expect(alert?.title).toBe('“cozy mystery” fell from #4 to #19 (B0CJ4XQ2ZK, US)');
    expect(alert).toMatchObject({
      kind: 'keyword_rank_drop',
      status: 'firing',
      severity: 'warning',
      ruleId: 'kw',
      subject: { asin: 'B0CJ4XQ2ZK', marketplace: 'US', keyword: 'cozy mystery' },
      facts: { before: 4, after: 19, positionsLost: 15, trigger: 'positions' },
    });
  });

  it('ignores noise below the threshold', () => {
    expect(run([drop()], polls([4, 6, 8, 5, 7, 4])).alerts).toEqual([]);
  });

  it('fires on a slow slide, because the baseline does not follow a worsening rank', () => {
    const { perPoll } = run([drop()], polls([4, 5, 6, 7, 8, 9, 10]));
    expect(perPoll.map((p) => p.length)).toEqual([0, 0, 0, 0, 0, 1, 0]);
    expect(perPoll[5]?.[0]?.facts).toMatchObject({ before: 4, after: 9 });
  });

  it('re-arm band: a jittery rank fires once, not on every swing across the threshold', () => {
    // With positionsLost 6, #9 and #10 are below the threshold: without a band this would flap.
    const jitter = polls([4, 12, 9, 13, 10, 12]);
    const banded = run([drop({ positionsLost: 6, sendResolved: true })], jitter);
    expect(kinds(banded.alerts)).toEqual(['keyword_rank_drop']);
    // A band wide enough to count #9 as recovered resolves there; the baseline then restarts at
    // #9, so #13 is not a new drop either.
    const loose = run([drop({ positionsLost: 6, sendResolved: true, rearmBand: 5 })], jitter);
    expect(loose.perPoll.map(kinds)).toEqual([
      [],
      ['keyword_rank_drop'],
      ['keyword_rank_recovered'],
      [],
      [],
      [],
    ]);
  });

  it('fires again only after it really recovered, with a new fingerprint', () => {
    const { perPoll } = run([drop()], polls([4, 12, 5, 12]));
    const fired = perPoll.flat();
    expect(kinds(fired)).toEqual(['keyword_rank_drop', 'keyword_rank_drop']);
    expect(fired[0]?.fingerprint).not.toBe(fired[1]?.fingerprint);
  });

  it('waits `for` breached polls, and a clear poll resets the count', () => {
    const r = drop({ for: 3 });
    expect(run([r], polls([4, 12, 12, 4, 12, 12])).alerts).toEqual([]);
    const { perPoll } = run([r], polls([4, 12, 13, 14, 14]));
    expect(perPoll.map((p) => p.length)).toEqual([0, 0, 0, 1, 0]);
    // The pending period did not move the baseline: it is measured from the last clear rank.
    expect(perPoll[3]?.[0]?.facts).toMatchObject({ before: 4, after: 14 });
  });

  it('repeats while still firing at the configured interval', () => {
    const { perPoll } = run([drop({ repeatEvery: '2h' })], polls([4, 12, 12, 12, 12, 12]));
    expect(perPoll.map((p) => p.length)).toEqual([0, 1, 0, 1, 0, 1]);
    const repeats = perPoll.flat();
    expect(repeats[1]?.title).toBe('“cozy mystery” is still down: #12 (from #4) (B0CJ4XQ2ZK, US)');
    expect(new Set(repeats.map((a) => a.fingerprint)).size).toBe(3);
  });

  it('sends a resolved alert only when configured, and only inside the band', () => {
    expect(kinds(run([drop()], polls([4, 12, 5])).alerts)).toEqual(['keyword_rank_drop']);
    const { perPoll } = run([drop({ sendResolved: true })], polls([4, 12, 7, 6]));
    expect(perPoll.map(kinds)).toEqual([[], ['keyword_rank_drop'], [], ['keyword_rank_recovered']]);
    expect(perPoll[3]?.[0]).toMatchObject({ status: 'resolved', facts: { before: 4, after: 6 } });
    expect(perPoll[3]?.[0]?.title).toBe(
      '“cozy mystery” is back at #6 (B0CJ4XQ2ZK, US) — was down to #12 for 2 h',
    );
  });

  it('names the low point of the episode and how long it lasted, through the stored bytes', () => {
    const ranks = [4, 12, 31, 20, ...Array<number>(17).fill(20), 5];
    const { perPoll } = run([drop({ sendResolved: true })], polls(ranks), undefined, { stored: true });
    const recovered = perPoll.at(-1)?.[0];
    expect(recovered?.kind).toBe('keyword_rank_recovered');
    expect(recovered?.title).toBe('“cozy mystery” is back at #5 (B0CJ4XQ2ZK, US) — was down to #31 for 20 h');
    expect(recovered?.facts).toMatchObject({ lowPoint: 31, lowPointUnranked: false, downForMs: 20 * HOUR });
    const unranked = run([drop({ sendResolved: true, unranked: true })], polls([4, 12, null, 4])).perPoll[3];
    expect(unranked?.[0]?.title).toMatch(/was down to unranked for 2 h$/);
    expect(unranked?.[0]?.facts).toMatchObject({ lowPoint: null, lowPointUnranked: true });
  });

  it('says only how long for an episode stored before the low point was tracked', () => {
    const r = drop({ sendResolved: true });
    const [p0, p1, p2, p3] = polls([4, 12, 40, 5]);
    if (p0 === undefined || p1 === undefined || p2 === undefined || p3 === undefined)
      throw new Error('polls');
    const ctx = (at: number) => ({ workspace: 'ws', targetId: 't1', nowMs: at });
    let state = evaluate(ctx(p0.observedAt), [r], undefined, p0, undefined).state;
    state = evaluate(ctx(p1.observedAt), [r], p0, p1, state).state;
    const columns = state.keywords?.rules.get('kw');
    if (columns === undefined) throw new Error('no keyword columns');
    columns.worst.fill(0); // what a state written by the previous version reads back as
    state = evaluate(ctx(p2.observedAt), [r], p1, p2, state).state;
    const perPoll = [[], evaluate(ctx(p3.observedAt), [r], p2, p3, state).alerts];
    expect(perPoll[1]?.[0]?.title).toBe('“cozy mystery” is back at #5 (B0CJ4XQ2ZK, US) — was down for 2 h');
    expect(perPoll[1]?.[0]?.facts).toMatchObject({ lowPoint: null, lowPointUnranked: false });
  });

  it('treats becoming unranked as its own trigger, never as a drop to infinity', () => {
    const lost = run([drop()], polls([4, null]));
    expect(lost.alerts[0]?.title).toBe('“cozy mystery” lost its rank (was #4) (B0CJ4XQ2ZK, US)');
    expect(lost.alerts[0]?.facts).toMatchObject({
      before: 4,
      after: null,
      unranked: true,
      positionsLost: null,
    });
    // With the trigger off, null is no reading: no alert, and the next number is judged normally.
    const off = run([drop({ unranked: false })], polls([4, null, null, 5, 12]));
    expect(off.perPoll.map((p) => p.length)).toEqual([0, 0, 0, 0, 1]);
  });

  it('percent and leave-top-N triggers', () => {
    const pct = rule({ id: 'p', kind: 'keyword_rank_drop', percent: 50, unranked: false });
    expect(run([pct], polls([10, 14])).alerts).toEqual([]);
    expect(factsOf(run([pct], polls([10, 15])).alerts[0])?.trigger).toBe('percent');
    const top = rule({ id: 't', kind: 'keyword_rank_drop', leaveTopN: 10, unranked: false });
    expect(factsOf(run([top], polls([8, 11])).alerts[0])?.trigger).toBe('top_n');
    expect(run([top], polls([12, 40])).alerts).toEqual([]);
  });

  it('restarts a baseline older than baselineMaxAge instead of comparing with a long-gone best', () => {
    const r = drop({ baselineMaxAge: '7d' });
    const seq = [keywords(T0, { k: 4 }), keywords(T0 + DAY, { k: 8 })];
    for (let d = 2; d <= 9; d++) seq.push(keywords(T0 + d * DAY, { k: 8 }));
    seq.push(keywords(T0 + 10 * DAY, { k: 9 }));
    expect(run([r], seq).alerts).toEqual([]);
    // Within the age the slide is still measured from #4.
    expect(
      run([r], [keywords(T0, { k: 4 }), keywords(T0 + DAY, { k: 8 }), keywords(T0 + 2 * DAY, { k: 9 })])
        .alerts,
    ).toHaveLength(1);
  });

  it('filters books, marketplaces and keywords', () => {
    const seq = [keywords(T0, { a: 1, b: 1 }), keywords(T0 + HOUR, { a: 20, b: 20 })];
    expect(run([drop({ keywords: ['b'] })], seq).alerts.map((a) => a.subject.keyword)).toEqual(['b']);
    expect(run([drop({ books: ['B000000000'] })], seq).alerts).toEqual([]);
    expect(run([drop({ marketplaces: ['DE'] })], seq).alerts).toEqual([]);
  });

  it('gives identical alerts when the same poll is evaluated again from the same state', () => {
    const r = drop();
    const first = run([r], polls([4, 5]));
    const next = keywords(T0 + 2 * HOUR, { 'cozy mystery': 19 });
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: next.observedAt };
    const a = evaluate(ctx, [r], first.last, next, first.state);
    const b = evaluate(ctx, [r], first.last, next, first.state);
    expect(a).toEqual(b);
    expect(a.alerts).toHaveLength(1);
    // A re-run that fetched again a little later (other time, other rank) is the same episode.
    const later = keywords(T0 + 2 * HOUR + 300_000, { 'cozy mystery': 21 });
    const c = evaluate({ ...ctx, nowMs: later.observedAt }, [r], first.last, later, first.state);
    expect(c.alerts[0]?.fingerprint).toBe(a.alerts[0]?.fingerprint);
  });

  it('drops the state of keywords that are no longer tracked', () => {
    const { state } = run([drop()], [keywords(T0, { a: 1, b: 2 }), keywords(T0 + HOUR, { b: 2, c: 3 })]);
    expect(Object.keys(state === undefined ? {} : conditionsOf(state)).sort()).toEqual([
      'kw|B0CJ4XQ2ZK|US|b',
      'kw|B0CJ4XQ2ZK|US|c',
    ]);
  });

  it('judges a keyword first seen this poll silently', () => {
    expect(run([drop()], [keywords(T0, { a: 1 }), keywords(T0 + HOUR, { a: 1, b: null })]).alerts).toEqual(
      [],
    );
  });
});
