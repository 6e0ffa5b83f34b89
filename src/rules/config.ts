import { z } from 'zod';
import { asinSchema, marketplaceSchema } from '../api/index.ts';
import { parseDuration } from '../util/duration.ts';

/**
 * The configured rules: one zod schema per alert kind, joined on `kind`. `src/config/` embeds
 * `rulesSchema`; the JSON Schema for editors must be exported with `io: 'input'` (durations are
 * strings in the file and milliseconds after parsing).
 */

/** `"90s"`, `"6h"`, `"1h30m"` or a number of milliseconds → milliseconds. */
export const duration = z
  .union([z.string(), z.number()])
  .transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a duration such as "90s", "5m", "6h", got ${JSON.stringify(value)}`,
      });
      return z.NEVER;
    }
    return ms;
  })
  .meta({ description: 'A duration such as "90s", "5m", "6h", "1h30m", or milliseconds.' });

/** A duration that must be longer than zero (a zero repeat interval would alert on every poll). */
export const positiveDuration = duration.refine((ms) => ms > 0, { message: 'the duration must be above 0' });

export const severitySchema = z.enum(['info', 'warning', 'critical']);

/** Rule ids go into state keys (`ruleId|subject`) and fingerprints, so they may not contain `|`. */
const ruleIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a rule id is 1-64 letters, digits, "_", "." or "-"');

function base<K extends string>(kind: K, severity: z.infer<typeof severitySchema>) {
  return {
    id: ruleIdSchema,
    kind: z.literal(kind),
    books: z.array(asinSchema).min(1).optional().describe('Only these ASINs (default: all).'),
    marketplaces: z.array(marketplaceSchema).min(1).optional().describe('Only these marketplaces.'),
    severity: severitySchema.default(severity),
  };
}

/** Fields every condition (fires, may stay firing, resolves) has. */
const conditionFields = {
  for: z.number().int().min(1).default(1).describe('Polls the condition must hold before it fires.'),
  repeatEvery: positiveDuration.optional().describe('Alert again while still firing, this often.'),
  sendResolved: z.boolean().default(false).describe('Also alert when the condition resolves.'),
};

const percentSchema = z.number().positive();

export const keywordRankDropSchema = z
  .strictObject({
    ...base('keyword_rank_drop', 'warning'),
    ...conditionFields,
    keywords: z.array(z.string().min(1)).min(1).optional().describe('Only these keywords (exact).'),
    positionsLost: z.number().int().min(1).optional().describe('Fire when ≥ N positions below baseline.'),
    percent: percentSchema.optional().describe('Fire when the rank is ≥ p% worse than baseline.'),
    leaveTopN: z.number().int().min(1).optional().describe('Fire when it was in the top N and is not.'),
    unranked: z.boolean().default(true).describe('Fire when a ranked keyword becomes unranked.'),
    rearmBand: z.number().int().min(0).default(2).describe('Resolve only within baseline + band.'),
    baselineMaxAge: duration.prefault('7d').describe('Restart the baseline after this long.'),
  })
  .refine(
    (r) =>
      r.positionsLost !== undefined || r.percent !== undefined || r.leaveTopN !== undefined || r.unranked,
    {
      message: 'keyword_rank_drop needs a trigger: positionsLost, percent, leaveTopN or unranked: true',
    },
  );

export const bsrWorsenedSchema = z.strictObject({
  ...base('bsr_worsened', 'warning'),
  ...conditionFields,
  baselineHours: z.number().int().min(1).max(72).default(24).describe('Hours of history in the median.'),
  factor: z.number().positive().default(1).describe('Fire when rank ≥ median × (1 + factor).'),
  minRankChange: z.number().int().min(0).default(10).describe('…and at least this many places worse.'),
  rearmFactor: z.number().min(0).default(0.5).describe('Resolve when rank ≤ baseline × (1 + rearmFactor).'),
});

export const bsrRemovedSchema = z.strictObject({
  ...base('bsr_removed', 'warning'),
  for: conditionFields.for,
  repeatEvery: conditionFields.repeatEvery,
});

export const compOvertookSchema = z.strictObject({
  ...base('comp_overtook', 'info'),
  for: conditionFields.for,
  // Falling behind again is half of what authors asked for: announced unless turned off.
  sendResolved: z.boolean().default(true).describe('Also alert when the comp falls behind again.'),
  comps: z.array(asinSchema).min(1).optional().describe('Only these comp ASINs (default: all listed).'),
  margin: z
    .number()
    .positive()
    .default(0.1)
    .describe(
      'Ahead when comp BSR × (1 + margin) ≤ book BSR; behind when comp BSR ≥ book BSR × (1 + margin).',
    ),
});

export const sentimentShiftSchema = z.strictObject({
  ...base('sentiment_shift', 'warning'),
  ...conditionFields,
  ratingChange: z
    .union([z.number().positive(), z.literal(false)])
    .default(0.2)
    .describe('Fire when the average rating is this many stars off its rolling baseline (false: off).'),
  sentimentPoints: z
    .union([z.number().positive().max(200), z.literal(false)])
    .default(10)
    .describe('Fire when positive − negative is this many percentage points off its baseline (false: off).'),
  baselinePolls: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(24)
    .describe('Polls the rolling baseline (an exponential average) spans.'),
  minReviews: z
    .number()
    .int()
    .min(0)
    .default(20)
    .describe('Judge only books with at least this many reviews.'),
});

const ratingSchema = z.number().int().min(1).max(5);

export const reviewNewSchema = z
  .strictObject({
    ...base('review_new', 'info'),
    platforms: z
      .array(z.enum(['amazon', 'audible', 'goodreads']))
      .min(1)
      .optional(),
    minRating: ratingSchema.optional(),
    maxRating: ratingSchema.optional(),
    lowStarAt: z.number().int().min(0).max(5).default(2).describe('Ratings ≤ this are flagged lowStar.'),
  })
  .refine((r) => r.minRating === undefined || r.maxRating === undefined || r.minRating <= r.maxRating, {
    message: 'minRating must not be above maxRating',
    path: ['minRating'],
  });

export const reviewRemovedSchema = z.strictObject({
  ...base('review_removed', 'warning'),
  platforms: z
    .array(z.enum(['amazon', 'audible', 'goodreads']))
    .min(1)
    .optional(),
});

export const reviewCountDownSchema = z.strictObject({
  ...base('review_count_down', 'warning'),
  minDrop: z.number().int().min(1).default(1).describe('Fire when the count fell by at least this.'),
});

export const royaltyChangeSchema = z.strictObject({
  ...base('royalty_change', 'warning'),
  currencies: z
    .array(z.string().regex(/^[A-Z]{3}$/))
    .min(1)
    .optional(),
  on: z
    .enum(['latest', 'final'])
    .default('latest')
    .describe('Judge a day when it first appears or when final.'),
  compareWith: z.enum(['day_before', 'trailing_average', 'either', 'both']).default('either'),
  trailingDays: z.number().int().min(1).max(60).default(7),
  percent: percentSchema.default(50).describe('Fire when the change is ≥ this percent…'),
  minAbsolute: z.number().int().min(0).default(500).describe('…and ≥ this many minor units.'),
  direction: z.enum(['down', 'up', 'both']).default('down'),
});

export const salesRevisionSchema = z.strictObject({
  ...base('sales_revision', 'info'),
  minRoyaltyChange: z.number().int().min(0).default(0).describe('Ignore revisions smaller than this.'),
});

export const sourceHealthSchema = z.strictObject({
  id: ruleIdSchema,
  kind: z.literal('source_health'),
  severity: severitySchema.default('critical'),
  targets: z.array(z.string().min(1)).min(1).optional().describe('Only these poll target ids.'),
  failures: z.number().int().min(1).default(3).describe('Consecutive failed polls before alerting.'),
  countNoData: z.boolean().default(true).describe('Count no_data outcomes as failures.'),
  pausedFor: duration
    .prefault('30m')
    .describe('Alert when the API pauses the whole workspace (429) for this long; a 401 alerts at once.'),
});

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
export type KeywordRankDropRule = z.output<typeof keywordRankDropSchema>;
export type BsrWorsenedRule = z.output<typeof bsrWorsenedSchema>;
export type BsrRemovedRule = z.output<typeof bsrRemovedSchema>;
export type ReviewNewRule = z.output<typeof reviewNewSchema>;
export type ReviewRemovedRule = z.output<typeof reviewRemovedSchema>;
export type ReviewCountDownRule = z.output<typeof reviewCountDownSchema>;
export type CompOvertookRule = z.output<typeof compOvertookSchema>;
export type SentimentShiftRule = z.output<typeof sentimentShiftSchema>;
export type RoyaltyChangeRule = z.output<typeof royaltyChangeSchema>;
export type SalesRevisionRule = z.output<typeof salesRevisionSchema>;
export type SourceHealthRule = z.output<typeof sourceHealthSchema>;
/** Rules that are conditions (state per subject) rather than events. */
export type ConditionRule = KeywordRankDropRule | BsrWorsenedRule | BsrRemovedRule;

/** What a workspace gets when its config lists no rules: one rule of each kind, quiet defaults. */
export function defaultRules(): RuleConfig[] {
  const input: RuleConfigInput[] = [
    { id: 'keyword-drop', kind: 'keyword_rank_drop', positionsLost: 5, leaveTopN: 10, for: 2 },
    { id: 'bsr-worse', kind: 'bsr_worsened', for: 2 },
    { id: 'bsr-removed', kind: 'bsr_removed' },
    { id: 'new-review', kind: 'review_new' },
    { id: 'review-removed', kind: 'review_removed' },
    { id: 'review-count-down', kind: 'review_count_down' },
    { id: 'comp-overtook', kind: 'comp_overtook' },
    { id: 'sentiment-shift', kind: 'sentiment_shift' },
    { id: 'royalty-change', kind: 'royalty_change' },
    { id: 'sales-revision', kind: 'sales_revision' },
    { id: 'source-health', kind: 'source_health' },
  ];
  return rulesSchema.parse(input);
}
