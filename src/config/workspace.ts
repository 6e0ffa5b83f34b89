// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/** The schema of one workspace: one API key, its plan, and what it watches. */
import { z } from 'zod';
import { asinSchema, type Marketplace } from '../api/index.ts';
import {
  boolField,
  idField,
  intField,
  marketplaceField,
  numberField,
  secretField,
  timeZoneField,
  uniqueList,
  urlField,
} from '../config-kit/fields.ts';
import { duration, rulesSchema } from '../rules/config.ts';
import { checkKeyUrl } from '../util/key-url.ts';

/** The plans of the contract; enterprise plans are custom ("custom:PER_MINUTE:PER_MONTH"). */
export const PLAN_PRESETS = {
  studio: { perMinute: 60, perMonth: 100_000 },
  publisher: { perMinute: 300, perMonth: 1_000_000 },
} as const;

const CUSTOM_PLAN = /^custom:([1-9]\d*):([1-9]\d*)$/;

export interface Plan {
  name: 'studio' | 'publisher' | 'custom';
  perMinute: number;
  perMonth: number;
}

const planField = z
  .union(
    [
      z.enum(['studio', 'publisher']),
      z.string().regex(CUSTOM_PLAN, { abort: true }),
      z.strictObject({ perMinute: intField(1, 1_000_000), perMonth: intField(1, 10_000_000_000) }),
    ],
    { error: 'expected "studio", "publisher", "custom:PER_MINUTE:PER_MONTH" or {perMinute, perMonth}' },
  )
  .transform((value): Plan => {
    if (value === 'studio' || value === 'publisher') return { name: value, ...PLAN_PRESETS[value] };
    if (typeof value !== 'string') return { name: 'custom', ...value };
    const [, perMinute, perMonth] = CUSTOM_PLAN.exec(value) ?? [];
    return { name: 'custom', perMinute: Number(perMinute), perMonth: Number(perMonth) };
  })
  .meta({ description: 'Rate limits of the API plan: studio (60/min, 100k/month), publisher, or custom.' });

/** Either the listed keywords, or the top N of /v1/books/{asin}/keywords (ordered by traffic share). */
export type KeywordSelection = { list: string[] } | { top: number };

const keywordsField = z
  .union(
    [
      uniqueList(z.string().trim().min(1, 'expected a keyword, not an empty string'), 'keyword').min(1),
      z.strictObject({ top: intField(1, 1000) }),
    ],
    { error: 'expected a list of keywords or {top: N} with N from 1 to 1000' },
  )
  .transform((value): KeywordSelection => (Array.isArray(value) ? { list: value } : { top: value.top }))
  .meta({ description: "Keywords to track: a list, or {top: N} of the book's own keywords." });

const bookSchema = z.strictObject({
  asin: asinSchema.meta({ description: '10 characters A-Z and 0-9.' }),
  marketplaces: uniqueList(marketplaceField, 'marketplace')
    .min(1, 'expected at least one marketplace')
    .prefault(['US'])
    .meta({ description: 'Marketplaces to watch the book in (default [US]).' }),
  keywords: keywordsField.prefault({ top: 100 }),
  author: z
    .string()
    .trim()
    .min(1, 'expected an author name')
    .optional()
    .meta({ description: 'For routing alerts (routes[].match.author).' }),
});

const campaignSchema = z.strictObject({
  id: z
    .string()
    .trim()
    .min(1, 'expected a campaign id')
    .max(200, 'expected a campaign id of at most 200 characters'),
  name: z
    .string()
    .trim()
    .min(1, 'expected a campaign name')
    .max(200, 'expected a campaign name of at most 200 characters')
    .optional()
    .meta({ description: 'What people call the campaign; messages and pages show it instead of the id.' }),
});

const salesField = z
  .union(
    [
      z.boolean(),
      z.strictObject({
        marketplaces: uniqueList(marketplaceField, 'marketplace').min(1, 'expected at least one marketplace'),
      }),
    ],
    { error: 'expected false, true or {marketplaces: [...]}' },
  )
  .meta({ description: "Sales to poll: false, or {marketplaces}. Default: all of the books' marketplaces." });

/** Cadences below one second would only burn quota; one second is kept for tests and demos. */
const cadenceValue = duration.pipe(z.number().min(1_000, 'expected a cadence of at least 1s'));

const cadenceSchema = z.strictObject({
  book: cadenceValue.optional(),
  keywords: cadenceValue.optional(),
  reviews: cadenceValue.optional(),
  sales: cadenceValue.optional(),
});

export const workspaceSchema = z
  .strictObject({
    id: idField('a workspace').meta({ description: 'Unique id: lowercase letters, digits and "-".' }),
    baseUrl: urlField(['http', 'https'], 'https://api.example.com').meta({
      description:
        'Base URL of the Publishing Analytics API (or of the simulator); http:// only on this machine.',
    }),
    allowInsecure: boolField()
      .prefault(false)
      .meta({ description: 'Allow a plain http:// baseUrl off this machine (the key travels unencrypted).' }),
    api: z
      .strictObject({
        contract: z.string().min(1, 'expected the path of a contract file').meta({
          description:
            'Contract file (YAML) saying where each field is in the API answers; only what differs from the default (docs/real-api.md). Relative to the config file.',
        }),
      })
      .optional()
      .meta({ description: 'How the API really answers, when it differs from the assumed contract.' }),
    apiKey: secretField.meta({
      description: 'Bearer API key of this workspace, e.g. ${PUBLISHING_API_KEY}.',
    }),
    plan: planField.prefault('studio'),
    reserve: numberField(0, 0.9)
      .prefault(0.1)
      .meta({ description: 'Share of the monthly quota kept for interactive commands (0..0.9).' }),
    timeZone: timeZoneField.default('UTC').meta({ description: 'IANA time zone for digests and schedules.' }),
    books: z.array(bookSchema).default([]).meta({ description: 'Books to watch (BSR, keywords, sales).' }),
    campaigns: z
      .array(campaignSchema)
      .default([])
      .meta({ description: 'ARC campaigns whose reviews to watch.' }),
    sales: salesField.optional(),
    keywordSource: z.enum(['auto', 'series', 'snapshot']).default('auto').meta({
      description:
        'Where keyword ranks are judged from: the hourly /v1/rankings series, per-book keyword snapshots, or auto (the cheaper one).',
    }),
    cadence: cadenceSchema.prefault({}).meta({
      description: 'Fixed poll cadences per target kind; the budget planner chooses the others.',
    }),
    rules: rulesSchema.default([]).meta({ description: 'Extra rules for this workspace only.' }),
  })
  .superRefine((ws, ctx) => {
    // The bearer key goes with every request: the one outbound-URL policy (util/key-url.ts) decides.
    const verdict = checkKeyUrl(ws.baseUrl, { allowInsecure: ws.allowInsecure });
    if (!verdict.ok) {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: verdict.message,
        params: { hint: verdict.hint },
      });
    }
    const seen = new Map<string, number>();
    ws.books.forEach((book, index) => {
      const first = seen.get(book.asin);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['books', index, 'asin'],
          message: `expected each book once, got ${book.asin} again (first at books[${first}])`,
          params: { hint: 'list all its marketplaces under one entry' },
        });
      } else seen.set(book.asin, index);
    });
    const campaigns = new Set<string>();
    ws.campaigns.forEach((campaign, index) => {
      if (campaigns.has(campaign.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['campaigns', index, 'id'],
          message: `expected each campaign once, got "${campaign.id}" again`,
        });
      }
      campaigns.add(campaign.id);
    });
    if (ws.books.length === 0 && ws.campaigns.length === 0 && !isObject(ws.sales)) {
      ctx.addIssue({
        code: 'custom',
        path: ['books'],
        message: 'expected something to watch: books, campaigns or sales, got none',
        params: { hint: 'add a book (asin) or an ARC campaign (id) to this workspace' },
      });
    }
  })
  .transform(({ sales, ...ws }) => ({ ...ws, sales: resolveSales(sales, ws.books) }));

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** `true` and "not set" both mean: the sales of every marketplace a watched book is in. */
function resolveSales(
  sales: boolean | { marketplaces: Marketplace[] } | undefined,
  books: readonly { marketplaces: Marketplace[] }[],
): { marketplaces: Marketplace[] } | false {
  if (sales === false) return false;
  if (typeof sales === 'object') return sales;
  const marketplaces = [...new Set(books.flatMap((book) => book.marketplaces))];
  return marketplaces.length === 0 ? false : { marketplaces };
}

export type WorkspaceConfig = z.output<typeof workspaceSchema>;
export type BookConfig = WorkspaceConfig['books'][number];
