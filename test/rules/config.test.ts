import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultRules, duration, ruleSchema, rulesSchema } from '../../src/rules/config.ts';

const messages = (result: { success: boolean; error?: z.ZodError }) =>
  result.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe('rule config', () => {
  it('parses durations into ms with a message that shows the fix', () => {
    expect(duration.parse('6h')).toBe(21_600_000);
    expect(duration.parse('1h30m')).toBe(5_400_000);
    expect(duration.parse(90_000)).toBe(90_000);
    expect(messages(duration.safeParse('abc'))).toEqual([
      ': expected a duration such as "90s", "5m", "6h", got "abc"',
    ]);
  });

  it('fills defaults per kind', () => {
    expect(ruleSchema.parse({ id: 'k', kind: 'keyword_rank_drop', repeatEvery: '12h' })).toMatchObject({
      severity: 'warning',
      for: 1,
      sendResolved: false,
      unranked: true,
      rearmBand: 2,
      repeatEvery: 43_200_000,
      baselineMaxAge: 7 * 86_400_000,
    });
    expect(ruleSchema.parse({ id: 'b', kind: 'bsr_worsened' })).toMatchObject({
      baselineHours: 24,
      factor: 1,
      minRankChange: 10,
      rearmFactor: 0.5,
    });
    expect(ruleSchema.parse({ id: 'r', kind: 'review_new' })).toMatchObject({
      severity: 'info',
      lowStarAt: 2,
    });
    expect(ruleSchema.parse({ id: 's', kind: 'royalty_change' })).toMatchObject({
      trailingDays: 7,
      percent: 50,
      minAbsolute: 500,
      direction: 'down',
      compareWith: 'either',
    });
    expect(ruleSchema.parse({ id: 'h', kind: 'source_health' })).toMatchObject({
      severity: 'critical',
      failures: 3,
    });
  });

  it('refuses royalty_change on: final, which was accepted and never done, saying what it takes', () => {
    expect(ruleSchema.parse({ id: 's', kind: 'royalty_change', on: 'latest' })).toMatchObject({
      on: 'latest',
    });
    expect(messages(ruleSchema.safeParse({ id: 's', kind: 'royalty_change', on: 'final' }))).toEqual([
      `on: expected 'latest' (a day is judged when it first appears); got "final": judging a day when its figures turn final is not available in this version`,
    ]);
  });

  it('rejects duplicate ids, naming both rules', () => {
    const result = rulesSchema.safeParse([
      { id: 'a', kind: 'review_new' },
      { id: 'b', kind: 'review_new' },
      { id: 'a', kind: 'bsr_removed' },
    ]);
    expect(messages(result)).toEqual([
      '2.id: rule id "a" is already used by rule 1; give each rule its own id',
    ]);
  });

  it('rejects a keyword rule with no trigger, a bad kind and a zero repeat', () => {
    expect(messages(ruleSchema.safeParse({ id: 'k', kind: 'keyword_rank_drop', unranked: false }))).toEqual([
      ': keyword_rank_drop needs a trigger: positionsLost, percent, leaveTopN or unranked: true',
    ]);
    expect(ruleSchema.safeParse({ id: 'k', kind: 'rank_drop' }).success).toBe(false);
    expect(messages(ruleSchema.safeParse({ id: 'k', kind: 'bsr_removed', repeatEvery: '0s' }))).toEqual([
      'repeatEvery: the duration must be above 0',
    ]);
    expect(ruleSchema.safeParse({ id: 'a|b', kind: 'review_new' }).success).toBe(false);
  });

  it('has defaults covering every kind, and a JSON Schema for editors', () => {
    const kinds = defaultRules().map((r) => r.kind);
    expect(new Set(kinds).size).toBe(11);
    const schema = JSON.stringify(z.toJSONSchema(rulesSchema, { io: 'input' }));
    expect(schema).toContain('"baselineMaxAge"');
  });
});
