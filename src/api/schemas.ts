/**
 * The assumed contract of the Publishing Analytics API (see docs/openapi.yaml and
 * shared/api-contract.md), as zod 4 schemas. This is the one module that has to change when real
 * API access shows the true field names.
 *
 * Objects use zod's default "strip" mode: unknown extra fields are accepted (the API may add
 * fields at any time) and dropped, so they can never leak into snapshots or diffs. Everything the
 * alerting relies on is checked: a response that does not match is reported, never mis-read.
 *
 * The keyword items (1,000 an answer) are also written out as a plain loop, `loopBookKeywords`,
 * which the client runs instead of zod (zod cost more than JSON.parse; see validator.ts): a rule
 * changed in `bookKeywordSchema` must change in the loop too, and test/api/keywords-loop.test.ts
 * fails until it does.
 */
import { z } from 'zod';
import { MARKETPLACES } from '../util/marketplaces.ts';
import { loopFirst } from './validator.ts';

export { MARKETPLACES };
export const marketplaceSchema = z.enum(MARKETPLACES);
export type Marketplace = z.infer<typeof marketplaceSchema>;

/** The currency royalties are paid in per marketplace (used by digests to group sums). */
export const MARKETPLACE_CURRENCY: Readonly<Record<Marketplace, string>> = {
  US: 'USD',
  UK: 'GBP',
  DE: 'EUR',
  FR: 'EUR',
  ES: 'EUR',
  IT: 'EUR',
  NL: 'EUR',
  JP: 'JPY',
  IN: 'INR',
  CA: 'CAD',
  BR: 'BRL',
  MX: 'MXN',
  AU: 'AUD',
};

export const ASIN_PATTERN = /^[A-Z0-9]{10}$/;
export const asinSchema = z.string().regex(ASIN_PATTERN, 'expected an ASIN: 10 characters A-Z or 0-9');

export function isAsin(value: string): boolean {
  return ASIN_PATTERN.test(value);
}

/** RFC 3339 in UTC with a `Z`: the contract promises UTC, and string order then equals time order. */
export const timestampSchema = z.iso.datetime();
export const dateSchema = z.iso.date();

/**
 * A rank is a positive integer; `null` is data ("not ranked"), not an error. Amazon's ranks stay in
 * the millions: anything past 2^32 − 1 is a broken answer (and would not fit a snapshot).
 */
export const RANK_MAX = 4_294_967_295;
export const rankSchema = z.int().positive().max(RANK_MAX).nullable();
const shareSchema = z.number().min(0).max(1);
const countSchema = z.int().nonnegative();

export const PLATFORMS = ['amazon', 'audible', 'goodreads'] as const;
export const platformSchema = z.enum(PLATFORMS);
export type Platform = z.infer<typeof platformSchema>;

/** A decimal string, never a float; negative amounts are allowed (refunds, corrections). */
export const moneySchema = z.object({
  amount: z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string such as "87.12"'),
  currency: z.string().regex(/^[A-Z]{3}$/, 'expected a 3-letter currency code'),
});
export type Money = z.infer<typeof moneySchema>;

// GET /v1/books/{asin}
export const rankPointSchema = z.object({ at: timestampSchema, rank: rankSchema });
export type RankPoint = z.infer<typeof rankPointSchema>;

export const bookSchema = z.object({
  asin: asinSchema,
  marketplace: marketplaceSchema,
  title: z.string(),
  author: z.string(),
  bsr: z.object({
    rank: rankSchema,
    category: z.string(),
    observed_at: timestampSchema,
    history: z.array(rankPointSchema),
  }),
  organic_keywords: z.array(z.object({ keyword: z.string().min(1), rank: rankSchema })),
  comp_titles: z.array(z.object({ asin: asinSchema, title: z.string(), bsr: rankSchema })),
  review_sentiment: z.object({
    // null while a book has no reviews yet: an average of nothing is not a rating.
    average_rating: z.number().min(1).max(5).nullable(),
    review_count: countSchema,
    positive: shareSchema,
    neutral: shareSchema,
    negative: shareSchema,
  }),
});
export type Book = z.infer<typeof bookSchema>;

// GET /v1/books/{asin}/keywords
export const bookKeywordSchema = z.object({
  keyword: z.string().min(1),
  rank: rankSchema,
  search_volume: countSchema,
  traffic_share: shareSchema,
});
export type BookKeyword = z.infer<typeof bookKeywordSchema>;

/** `GET /v1/books/{asin}/keywords` answers at most 1,000 keywords. */
export const BOOK_KEYWORDS_MAX = 1000;
export const bookKeywordsSchema = z.object({
  asin: asinSchema,
  data: z.array(bookKeywordSchema).max(BOOK_KEYWORDS_MAX),
});
export type BookKeywords = z.infer<typeof bookKeywordsSchema>;

/**
 * `bookKeywordSchema`'s rules as a loop: keyword a non-empty string, rank null or an integer
 * 1..2^32 − 1, search_volume a safe integer ≥ 0, traffic_share a number in 0..1; unknown fields
 * dropped; at most 1,000 items. Undefined at the first item that breaks a rule.
 */
export function loopBookKeywords(input: unknown): BookKeyword[] | undefined {
  if (!Array.isArray(input) || input.length > BOOK_KEYWORDS_MAX) return undefined;
  // Sized up front, as zod does: measured ~40% faster than growing it by push.
  const out = new Array<BookKeyword>(input.length);
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
    // Property reads (not own-key checks), as zod reads them.
    const { keyword, rank, search_volume, traffic_share } = item as Record<string, unknown>;
    // A string of at least one UTF-16 unit has at least one code point (zod's min(1) measure).
    if (typeof keyword !== 'string' || keyword.length === 0) return undefined;
    // An integer in 1..2^32 − 1 is a safe integer: z.int()'s safe range needs no test of its own.
    const rankOk =
      rank === null || (typeof rank === 'number' && Number.isInteger(rank) && rank >= 1 && rank <= RANK_MAX);
    if (!rankOk) return undefined;
    if (typeof search_volume !== 'number' || !Number.isSafeInteger(search_volume) || search_volume < 0) {
      return undefined;
    }
    // Both comparisons are false for NaN; ±Infinity falls outside 0..1.
    if (typeof traffic_share !== 'number' || !(traffic_share >= 0 && traffic_share <= 1)) return undefined;
    out[i] = { keyword, rank, search_volume, traffic_share };
  }
  return out;
}

const bookKeywordsEnvelope = bookKeywordsSchema.extend({ data: z.unknown() });

/**
 * What the client validates a keywords answer with: zod for the envelope, `loopBookKeywords` for
 * the items, and `bookKeywordsSchema` itself for a body the loop rejects (its error is reported).
 */
export const bookKeywordsValidator = loopFirst(bookKeywordsSchema, (input): BookKeywords | undefined => {
  const outer = bookKeywordsEnvelope.safeParse(input);
  const data = outer.success ? loopBookKeywords(outer.data.data) : undefined;
  return outer.success && data !== undefined ? { asin: outer.data.asin, data } : undefined;
});

// GET /v1/keywords/search
export const keywordSearchResultSchema = z.object({
  keyword: z.string().min(1),
  search_volume: countSchema,
  competition: shareSchema,
  intent_score: shareSchema,
});
export type KeywordSearchResult = z.infer<typeof keywordSearchResultSchema>;

// GET /v1/rankings
export const rankingSeriesSchema = z.object({
  asin: asinSchema,
  keyword: z.string().min(1),
  marketplace: marketplaceSchema,
  points: z.array(rankPointSchema),
});
export type RankingSeries = z.infer<typeof rankingSeriesSchema>;

// POST /v1/arc/invites. The client does not enforce this schema (the server's 422 with details is
// the authority); it types the body and lets callers check input early if they want to.
export const arcInviteRequestSchema = z.object({
  campaign_id: z.string().min(1),
  readers: z
    .array(z.object({ email: z.string(), name: z.string() }))
    .min(1)
    .max(100),
  message: z.string().optional(),
});
export type ArcInviteRequest = z.infer<typeof arcInviteRequestSchema>;

export const INVITE_STATUSES = ['invited', 'already_invited'] as const;
export const arcInviteResultSchema = z.object({
  campaign_id: z.string().min(1),
  data: z.array(
    z.object({
      invite_id: z.string().min(1),
      email: z.string(),
      status: z.enum(INVITE_STATUSES),
    }),
  ),
});
export type ArcInviteResult = z.infer<typeof arcInviteResultSchema>;

// GET /v1/arc/reviews
export const arcReviewSchema = z.object({
  review_id: z.string().min(1),
  campaign_id: z.string().min(1),
  asin: asinSchema,
  platform: platformSchema,
  rating: z.int().min(1).max(5),
  title: z.string().nullable(),
  body: z.string(),
  reviewer: z.string(),
  url: z.string().nullable(),
  published_at: timestampSchema,
});
export type ArcReview = z.infer<typeof arcReviewSchema>;

// GET /v1/sales
export const salesRecordSchema = z.object({
  asin: asinSchema,
  marketplace: marketplaceSchema,
  date: dateSchema,
  // Net units may be negative on a day with more returns than sales.
  units: z.int(),
  royalties: moneySchema,
  ad_spend: moneySchema,
  /** Whether the day's figures are final; only where the contract reads it (`sales.final`). */
  final: z.boolean().optional(),
});
/**
 * A sales row as a contract reads it: money is null where the contract's `noFigure` says the API
 * sent "no figure" (-1, null, absent); only such a sentinel reads as null, so the assumed contract
 * keeps `salesRecordSchema`. The engine leaves such a day out (src/model/sales-day.ts).
 */
export const salesReadSchema = salesRecordSchema.extend({
  royalties: moneySchema.nullable(),
  ad_spend: moneySchema.nullable(),
});
export type SalesRecord = z.infer<typeof salesReadSchema>;

/**
 * `{ data: [...], next_cursor }`, the envelope of every paginated list. The assumed contract states
 * no total; an API that does (`total`, items in the whole list) has it checked by `paginate`.
 */
export function listPageSchema<Item extends z.ZodType>(item: Item) {
  return z.object({
    data: z.array(item),
    next_cursor: z.string().min(1).nullable(),
    total: z.int().nonnegative().optional(),
  });
}
export interface ListPage<Item> {
  data: Item[];
  next_cursor: string | null;
  total?: number | undefined;
}

export const keywordSearchPageSchema = listPageSchema(keywordSearchResultSchema);
export const rankingsPageSchema = listPageSchema(rankingSeriesSchema);
export const arcReviewsPageSchema = listPageSchema(arcReviewSchema);
export const salesPageSchema = listPageSchema(salesRecordSchema);

/** The body of every 4xx/5xx the service itself answers (a proxy may answer HTML instead). */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string().min(1),
    message: z.string(),
    request_id: z.string().optional(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
