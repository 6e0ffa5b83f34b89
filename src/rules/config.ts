import { z } from 'zod';
import { bsrDefaults, bsrRemovedSchema, bsrWorsenedSchema } from './bsr.ts';
import { compDefaults, compOvertookSchema } from './comps.ts';
import { keywordDefaults, keywordRankDropSchema } from './keyword-rank.ts';
import { reviewCountDownSchema, reviewDefaults, reviewNewSchema, reviewRemovedSchema } from './reviews.ts';
import { royaltyChangeSchema, salesDefaults, salesRevisionSchema } from './sales.ts';
import { sentimentDefaults, sentimentShiftSchema } from './sentiment.ts';
import { sourceHealthDefaults, sourceHealthSchema } from './source-health.ts';

/**
 * The configured rules: each family of kinds writes the schemas of its rules (its own file, from the
 * field kit in `rule-fields.ts`); here they are joined on `kind`. `src/config/` embeds
 * `rulesSchema`; the JSON Schema for editors must be exported with `io: 'input'` (durations are
 * strings in the file and milliseconds after parsing).
 */

export type { BsrRemovedRule, BsrWorsenedRule } from './bsr.ts';
export type { CompOvertookRule } from './comps.ts';
export type { KeywordRankDropRule } from './keyword-rank.ts';
export type { ReviewCountDownRule, ReviewNewRule, ReviewRemovedRule } from './reviews.ts';
export { duration, positiveDuration, severitySchema } from './rule-fields.ts';
export type { RoyaltyChangeRule, SalesRevisionRule } from './sales.ts';
export type { SentimentShiftRule } from './sentiment.ts';
export type { SourceHealthRule } from './source-health.ts';

export const ruleSchema = z.discriminatedUnion('kind', [
  keywordRankDropSchema,
  bsrWorsenedSchema,
  bsrRemovedSchema,
  reviewNewSchema,
  reviewRemovedSchema,
  reviewCountDownSchema,
  compOvertookSchema,
  sentimentShiftSchema,
  royaltyChangeSchema,
  salesRevisionSchema,
  sourceHealthSchema,
]);

export const rulesSchema = z.array(ruleSchema).superRefine((rules, ctx) => {
  const firstIndex = new Map<string, number>();
  rules.forEach((rule, index) => {
    const first = firstIndex.get(rule.id);
    if (first === undefined) {
      firstIndex.set(rule.id, index);
      return;
    }
    ctx.addIssue({
      code: 'custom',
      path: [index, 'id'],
      message: `rule id "${rule.id}" is already used by rule ${first + 1}; give each rule its own id`,
    });
  });
});

export type RuleConfig = z.output<typeof ruleSchema>;
export type RuleConfigInput = z.input<typeof ruleSchema>;
export type RuleKind = RuleConfig['kind'];

/** What a workspace gets when its config lists no rules: one rule of each kind, quiet defaults. */
export function defaultRules(): RuleConfig[] {
  const input: RuleConfigInput[] = [
    ...keywordDefaults,
    ...bsrDefaults,
    ...reviewDefaults,
    ...compDefaults,
    ...sentimentDefaults,
    ...salesDefaults,
    ...sourceHealthDefaults,
  ];
  return rulesSchema.parse(input);
}
