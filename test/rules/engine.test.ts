import { describe, expect, it } from 'vitest';
import { initialCondition, stepCondition } from '../../src/rules/condition.ts';
import { defaultRules } from '../../src/rules/config.ts';
import { conditionsOf, evaluate } from '../../src/rules/engine.ts';
import { fingerprint } from '../../src/rules/fingerprint.ts';
import { book, date, day, HOUR, keywords, review, reviews, rule, run, sales, T0 } from './helpers.ts';

describe('evaluate', () => {
  it('first poll of any target is a silent baseline, however dramatic', () => {
    const ctx = { workspace: 'ws', targetId: 't', nowMs: T0 };
    const rules = defaultRules();
    for (const obs of [
      keywords(T0, { a: null, b: 900 }),
      book(T0, null, [5, 5, 5], { reviewCount: 0 }),
      reviews(T0, [review('r1', 1)]),
      sales(T0, [day(date(1), 0), day(date(2), 1_000_000)]),
    ]) {
      expect(evaluate(ctx, rules, undefined, obs, undefined).alerts).toEqual([]);
    }
  });

  it('ignores a stale state when there is no previous snapshot', () => {
    const r = rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5 });
    const { state } = run([r], [keywords(T0, { k: 1 }), keywords(T0 + HOUR, { k: 20 })]);
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: T0 + 2 * HOUR };
    const result = evaluate(ctx, [r], undefined, keywords(T0 + 2 * HOUR, { k: 3 }), state);
    expect(result.alerts).toEqual([]);
    expect(conditionsOf(result.state)['kw|B0CJ4XQ2ZK|US|k']).toMatchObject({ phase: 'clear', baseline: 3 });
  });

  it('rebuilds a lost state from the previous snapshot, so the change is still judged', () => {
    const r = rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5 });
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: T0 + HOUR };
    const result = evaluate(ctx, [r], keywords(T0, { k: 4 }), keywords(T0 + HOUR, { k: 19 }), undefined);
    expect(result.alerts.map((a) => a.title)).toEqual(['“k” fell from #4 to #19 (B0CJ4XQ2ZK, US)']);
  });

  it('treats a previous snapshot of another kind as no previous snapshot', () => {
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: T0 + HOUR };
    expect(
      evaluate(ctx, defaultRules(), book(T0, 5), keywords(T0 + HOUR, { k: null }), undefined).alerts,
    ).toEqual([]);
  });

  it('returns plain JSON state that survives a round trip, and drops rules no longer configured', () => {
    const a = rule({ id: 'a', kind: 'bsr_removed' });
    const b = rule({ id: 'b', kind: 'bsr_worsened' });
    const first = run([a, b], [book(T0, 100, [100]), book(T0 + HOUR, null, [100])]);
    const state = first.state;
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    expect(Object.keys(state?.conditions ?? {}).sort()).toEqual(['a|B0CJ4XQ2ZK|US', 'b|B0CJ4XQ2ZK|US']);
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: T0 + 2 * HOUR };
    const next = evaluate(ctx, [b], first.last, book(T0 + 2 * HOUR, 100, [100]), state);
    expect(Object.keys(next.state.conditions)).toEqual(['b|B0CJ4XQ2ZK|US']);
  });

  describe('scales linearly with the number of keywords', () => {
    const r = rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, leaveTopN: 10 });
    const ctx = { workspace: 'ws', targetId: 't', nowMs: T0 + HOUR };
    /** A poll pair where ~2% of keywords move (half fire on positions, half go unranked) and the rest improve a little. */
    const setup = (n: number) => {
      const a: Record<string, number | null> = {};
      const b: Record<string, number | null> = {};
      for (let i = 0; i < n; i++) {
        a[`keyword ${i}`] = (i % 50) + 1;
        b[`keyword ${i}`] = i % 100 === 0 ? 90 : i % 100 === 1 ? null : Math.max(1, (i % 50) + 1 - (i % 3));
      }
      const prev = keywords(T0, a);
      const next = keywords(T0 + HOUR, b);
      const state = evaluate({ ...ctx, nowMs: T0 }, [r], undefined, prev, undefined).state;
      return { prev, next, state };
    };

    /** Counts reads of everything the engine is given that grows with n: a deterministic cost measure. */
    function reads(n: number): number {
      const { prev, next, state } = setup(n);
      let count = 0;
      const counted = <T extends object>(target: T): T =>
        new Proxy(target, {
          get: (t, p, recv) => {
            count++;
            return Reflect.get(t, p, recv);
          },
          has: (t, p) => {
            count++;
            return Reflect.has(t, p);
          },
        });
      const result = evaluate(
        ctx,
        [r],
        { ...prev, ranks: counted(prev.ranks) },
        { ...next, ranks: counted(next.ranks) },
        // The keyword columns as they are: hiding them would measure the lost-state rebuild instead.
        { ...state, conditions: counted(state.conditions) },
      );
      expect(result.alerts).toHaveLength(n / 50);
      return count;
    }

    it('in the number of reads of observations and state (16× the keywords, not 256× the reads)', () => {
      const ratio = reads(16_000) / reads(1_000);
      expect(ratio).toBeGreaterThan(15);
      expect(ratio).toBeLessThan(17);
    });

    it('in time, measured loosely (fastest of several runs, quadratic would be ~256×)', () => {
      const fastest = (n: number): number => {
        const { prev, next, state } = setup(n);
        let best = Number.POSITIVE_INFINITY;
        for (let i = 0; i < 9; i++) {
          const start = performance.now();
          evaluate(ctx, [r], prev, next, state);
          best = Math.min(best, performance.now() - start);
        }
        return best;
      };
      fastest(1_000); // warm up the JIT
      expect(fastest(16_000) / fastest(1_000)).toBeLessThan(120);
    });
  });
});

describe('fingerprint', () => {
  const parts = {
    workspace: 'ws',
    ruleId: 'kw',
    kind: 'keyword_rank_drop' as const,
    subject: { asin: 'B0CJ4XQ2ZK', marketplace: 'US', keyword: 'cozy mystery' },
    observation: 'episode:1',
  };

  it('is 32 hex chars, independent of subject key order and absent fields', () => {
    const fp = fingerprint(parts);
    expect(fp).toMatch(/^[0-9a-f]{32}$/);
    const reordered = { keyword: 'cozy mystery', marketplace: 'US', asin: 'B0CJ4XQ2ZK', date: undefined };
    expect(fingerprint({ ...parts, subject: reordered })).toBe(fp);
  });

  it('changes with each part', () => {
    const fp = fingerprint(parts);
    expect(fingerprint({ ...parts, workspace: 'other' })).not.toBe(fp);
    expect(fingerprint({ ...parts, ruleId: 'kw2' })).not.toBe(fp);
    expect(fingerprint({ ...parts, kind: 'keyword_rank_recovered' })).not.toBe(fp);
    expect(fingerprint({ ...parts, subject: { ...parts.subject, keyword: 'cozy' } })).not.toBe(fp);
    expect(fingerprint({ ...parts, observation: 'episode:2' })).not.toBe(fp);
  });
});

describe('condition machine', () => {
  const breach = { breached: true, recovered: false, baseline: 1, baselineAt: 0 };
  const calm = { breached: false, recovered: true, baseline: 1, baselineAt: 0 };

  it('clear → pending → firing → clear, naming the episode by the last clear poll', () => {
    let s = stepCondition(initialCondition(1, 0), calm, { for: 2, at: 10 });
    expect(s.state).toMatchObject({ phase: 'clear', clearAt: 10 });
    s = stepCondition(s.state, breach, { for: 2, at: 20 });
    expect(s).toMatchObject({ state: { phase: 'pending', count: 1 }, transition: null });
    s = stepCondition(s.state, breach, { for: 2, at: 30 });
    expect(s).toMatchObject({
      state: { phase: 'firing', firedAt: 30 },
      transition: { type: 'fire' },
      episode: 10,
    });
    s = stepCondition(s.state, null, { for: 2, at: 40 });
    expect(s.transition).toBeNull();
    s = stepCondition(s.state, calm, { for: 2, at: 50 });
    expect(s).toMatchObject({
      state: { phase: 'clear', clearAt: 50 },
      transition: { type: 'resolve' },
      episode: 10,
    });
  });
});
