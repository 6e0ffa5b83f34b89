import { z } from 'zod';
import { DAY_MS } from '../util/time-units.ts';
import { FAULT_KINDS } from './faults.ts';
import type { SimPlan } from './keys.ts';
import type { RequestLogEntry } from './request-log.ts';
import { MARKETPLACES, type Marketplace } from './world/market.ts';

/** Bodies the control endpoint accepts. Kept apart from the handlers, which check them against the world. */

const asin = z.string().regex(/^[A-Z0-9]{10}$/, { error: 'must be 10 characters A-Z or 0-9' });
const marketplace = z.enum(MARKETPLACES);
const rank = z.number().int().min(1).nullable();
const amount = z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, { error: 'must be a decimal string like "12.34"' });

export const EventBody = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('keyword_rank'),
    asin,
    keyword: z.string().min(1).max(200),
    marketplace: marketplace.default('US'),
    rank,
  }),
  z.object({ type: z.literal('bsr'), asin, marketplace: marketplace.default('US'), rank }),
  z.object({
    type: z.literal('review'),
    campaign_id: z.string().min(1),
    platform: z.enum(['amazon', 'audible', 'goodreads']),
    rating: z.number().int().min(1).max(5),
    title: z.string().max(500).nullable().optional(),
    body: z.string().max(50_000),
    reviewer: z.string().min(1).max(200),
    asin: asin.optional(),
  }),
  z.object({ type: z.literal('remove_review'), review_id: z.string().min(1) }),
  z.object({
    type: z.literal('comp_bsr'),
    asin,
    marketplace: marketplace.default('US'),
    comp_asin: asin,
    rank,
  }),
  z.object({
    type: z.literal('comp_titles'),
    asin,
    marketplace: marketplace.default('US'),
    listed: z.boolean(),
  }),
  z.object({
    type: z.literal('sentiment'),
    asin,
    average_rating: z.number().min(1).max(5),
    positive: z.number().min(0).max(1).optional(),
    negative: z.number().min(0).max(1).optional(),
  }),
  z.object({
    type: z.literal('sales_revision'),
    asin,
    marketplace,
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date YYYY-MM-DD' }),
    royalties: amount.optional(),
    units: z.number().int().min(0).optional(),
    ad_spend: amount.optional(),
  }),
]);
export type EventBody = z.infer<typeof EventBody>;

export const FaultBody = z.object({
  kind: z.enum(FAULT_KINDS),
  count: z.number().int().min(1).max(1_000_000).default(1),
  pathPrefix: z.string().startsWith('/').default('/v1/'),
  status: z.number().int().min(100).max(599).optional(),
  code: z.string().min(1).max(100).optional(),
  // Strict objects: a loose `{seconds}` would also match `{date: true, seconds}` and drop `date`.
  retryAfter: z
    .union([
      z.strictObject({
        date: z.literal(true),
        seconds: z
          .number()
          .int()
          .min(0)
          .max(86_400 * 40)
          .optional(),
      }),
      z.strictObject({
        seconds: z
          .number()
          .int()
          .min(0)
          .max(86_400 * 40),
      }),
    ])
    .optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
  field: z.string().min(1).max(200).optional(),
});

const rate = z.number().min(0).max(1).optional();
export const RatesBody = z.object({
  errorRate: rate,
  htmlRate: rate,
  slowRate: rate,
  slowMs: z.number().int().min(0).max(600_000).optional(),
  malformedRate: rate,
});

export const KeyBody = z.object({
  key: z.string().min(1).max(200).regex(/^\S+$/, { error: 'must not contain spaces' }),
  workspace: z.string().min(1).max(200),
  plan: z.string(),
  disabledEndpoints: z.array(z.string().startsWith('/')).optional(),
});

export const RevokeBody = z.object({ key: z.string().min(1) });

export const ClockBody = z.object({
  advanceMs: z
    .number()
    .int()
    .min(0)
    .max(400 * DAY_MS),
});

/** What a caller may send: the bodies before defaults are applied (`marketplace` may be left out). */
export type SimEventInput = z.input<typeof EventBody>;
export type SimFaultInput = z.input<typeof FaultBody>;
export type SimRatesInput = z.input<typeof RatesBody>;
export type SimKeyInput = z.input<typeof KeyBody>;

/** A book of the world as `GET /_sim/world` lists it (keywords: its first 20). */
export interface SimWorldBook {
  asin: string;
  title: string;
  author: string;
  marketplaces: readonly Marketplace[];
  keywords: readonly string[];
}

/** The answer of `GET /_sim/world`: what tests, the demo and benchmarks pick their targets from. */
export interface SimWorld {
  now: string;
  books: SimWorldBook[];
  campaigns: { campaign_id: string; asin: string }[];
  workspaces: {
    workspace: string;
    plan: SimPlan;
    keys: number;
    usage: { minute_count: number; month: string; month_count: number };
  }[];
}

/** The answer of `POST /_sim/events`: a review carries its new id, other events their sim time. */
export interface SimEventAnswer {
  ok: true;
  applied_at?: string;
  review_id?: string;
}

export type SimLoggedRequest = RequestLogEntry;

/** One line naming each failing field: what a test author needs to fix the call. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length === 0 ? 'body' : issue.path.join('.')}: ${issue.message}`)
    .join('; ');
}
