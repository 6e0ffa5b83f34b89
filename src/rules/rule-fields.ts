/**
 * The field kit of rule schemas: durations, severities, rule ids and the fields every rule or every
 * condition has. Each family of kinds writes its own schema from these (`bsr.ts`, `reviews.ts`, …);
 * `config.ts` joins them.
 */
import { z } from 'zod';
import { asinSchema, marketplaceSchema } from '../api/index.ts';
import { parseDuration } from '../util/duration.ts';

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
export const ruleIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a rule id is 1-64 letters, digits, "_", "." or "-"');

export function base<K extends string>(kind: K, severity: z.infer<typeof severitySchema>) {
  return {
    id: ruleIdSchema,
    kind: z.literal(kind),
    books: z.array(asinSchema).min(1).optional().describe('Only these ASINs (default: all).'),
    marketplaces: z.array(marketplaceSchema).min(1).optional().describe('Only these marketplaces.'),
    severity: severitySchema.default(severity),
  };
}

/** Fields every condition (fires, may stay firing, resolves) has. */
export const conditionFields = {
  for: z.number().int().min(1).default(1).describe('Polls the condition must hold before it fires.'),
  repeatEvery: positiveDuration.optional().describe('Alert again while still firing, this often.'),
  sendResolved: z.boolean().default(false).describe('Also alert when the condition resolves.'),
};

export const percentSchema = z.number().positive();

export const ratingSchema = z.number().int().min(1).max(5);
