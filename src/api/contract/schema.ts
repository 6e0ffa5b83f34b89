/**
 * The contract file's shape (zod, strict: an unknown key is an error). Which logical field names an
 * endpoint has, and which formats fit which field, is checked after this by `checkContract`
 * (check.ts), against the catalogue.
 */
import { z } from 'zod';
import { FORBIDDEN_PARTS, isForbiddenPart, splitPath } from './path.ts';

/** A dotted path into an answer: `bsr.rank`, `result.items`, `0` (first element of a pair); '' = here. */
export const pathSchema = z
  .string()
  .regex(
    /^([^.[\]\s]+(\.[^.[\]\s]+)*)?$/,
    'expected a dotted path such as "bsr.rank" (no empty parts, no [ ])',
  )
  .refine((path) => !splitPath(path).some(isForbiddenPart), {
    message: `expected a path without ${FORBIDDEN_PARTS.map((p) => `"${p}"`).join(', ')} (they reach into every object's prototype)`,
  })
  .meta({
    description:
      'Dotted path into the answer; a part of digits indexes an array (pairs); "" is the object itself.',
  });

/** A value meaning "not ranked": null, a number (0, -1, a sentinel) or "missing" (the field is absent). */
export const unrankedSchema = z.union([z.null(), z.number(), z.literal('missing')]);

/**
 * Where a money field's currency is: a path below the field (`currencyCode`), one currency for every
 * amount (`{ fixed: USD }`), or the currency of the row's own marketplace (`{ fromMarketplace: true }`:
 * Keepa's integer cents are the marketplace's currency, US USD, UK GBP, DE EUR, JP JPY, ...).
 */
export type CurrencySpec = string | { fixed: string } | { fromMarketplace: true };
const currencySchema = z.union([
  pathSchema,
  z.strictObject({ fixed: z.string().meta({ description: 'an ISO 4217 code: every amount is in it' }) }),
  z.strictObject({
    fromMarketplace: z.literal(true).meta({ description: "the currency of the row's marketplace" }),
  }),
]);

export const LIST_LAYOUTS = ['objects', 'pairs', 'flat', 'keyed'] as const;
export type ListLayout = (typeof LIST_LAYOUTS)[number];

export interface FieldSpecObject {
  path: string;
  format?: string | undefined;
  unranked?: (null | number | 'missing')[] | undefined;
  amount?: string | undefined;
  currency?: CurrencySpec | undefined;
  noFigure?: (null | number | 'missing')[] | undefined;
  items?: Record<string, FieldSpec> | undefined;
  optional?: boolean | undefined;
  alsoAt?: string[] | undefined;
  scale?: number | undefined;
  epoch?: string | undefined;
  layout?: ListLayout | undefined;
}
export type FieldSpec = string | FieldSpecObject;

export const fieldSpecSchema: z.ZodType<FieldSpec> = z.lazy(() =>
  z.union([
    pathSchema,
    z.strictObject({
      path: pathSchema,
      format: z.string().optional().meta({
        description:
          'time: iso | epoch_s | epoch_ms; date: date | iso | epoch_s | epoch_ms; money: decimal_string | major_number | minor_units',
      }),
      unranked: z
        .array(unrankedSchema)
        .min(1)
        .optional()
        .meta({ description: 'ranks and ratings: the values that mean "none"' }),
      amount: pathSchema.optional().meta({ description: 'money: where the amount is, below path' }),
      currency: currencySchema.optional().meta({
        description:
          'money: where the currency code is, below path; or { fixed: USD }, or { fromMarketplace: true } (no currency member)',
      }),
      noFigure: z.array(unrankedSchema).min(1).optional().meta({
        description:
          'money: amounts that mean "no figure" (-1, null, missing): the day is left out, never read as 0',
      }),
      items: z
        .record(z.string(), fieldSpecSchema)
        .optional()
        .meta({ description: 'lists: the fields of one item, paths relative to the item' }),
      optional: z.boolean().optional().meta({
        description:
          'the member may be absent from the answer (absent reads as null); the simulator leaves it out',
      }),
      alsoAt: z.array(pathSchema).min(1).optional().meta({
        description:
          'other paths tried in order when the value is absent at path (e.g. error details of a 400 and a 422)',
      }),
      scale: z.number().positive().optional().meta({
        description: 'numbers: the wire value is ours times scale (a rating sent x10: scale 10)',
      }),
      epoch: z.iso.date().optional().meta({
        description: 'epoch_s, epoch_ms, epoch_min: the day the count starts from (default 1970-01-01)',
      }),
      layout: z.enum(LIST_LAYOUTS).optional().meta({
        description:
          "lists: objects (default), pairs ([t, v] items), flat ([t, v, t, v, ...]) or keyed ({\"t\": v}); item fields at '0' and '1' for the last three",
      }),
    }),
  ]),
);

export const endpointSpecSchema = z.strictObject({
  /** Where the object is (single answers) or where the list is (lists). */
  root: pathSchema.optional(),
  items: pathSchema.optional(),
  fields: z.record(z.string(), fieldSpecSchema).optional(),
  pagination: z.lazy(() => paginationSchema).optional(),
  params: z
    .lazy(() => paramsSchema)
    .optional()
    .meta({ description: "this endpoint's own query parameters" }),
  fixedParams: z.lazy(() => fixedParamsSchema).optional(),
  request: z
    .strictObject({ root: pathSchema.optional(), fields: z.record(z.string(), fieldSpecSchema).optional() })
    .optional()
    .meta({ description: 'invites: the request body, by the same paths and formats as answers' }),
});
export type EndpointSpec = z.infer<typeof endpointSpecSchema>;

export const PAGINATION_STYLES = ['cursor', 'nextUrl', 'linkHeader', 'page', 'offset'] as const;
export type PaginationStyle = (typeof PAGINATION_STYLES)[number];

export const paginationSchema = z.strictObject({
  cursor: z
    .strictObject({
      param: z.string().min(1),
      next: pathSchema,
      total: pathSchema.optional(),
      alone: z.boolean().optional().meta({ description: 'the token is sent without the other filters' }),
    })
    .optional(),
  nextUrl: z.strictObject({ next: pathSchema }).optional(),
  linkHeader: z.strictObject({ header: z.string().min(1).optional() }).optional(),
  page: z
    .strictObject({
      param: z.string().min(1),
      firstPage: z.int().min(0).optional(),
      totalPages: pathSchema.optional(),
      totalItems: pathSchema.optional(),
    })
    .optional(),
  offset: z.strictObject({ param: z.string().min(1), total: pathSchema.optional() }).optional(),
  limit: z.strictObject({ param: z.string().min(1).optional(), max: z.int().min(1).optional() }).optional(),
});
export type PaginationSpec = z.infer<typeof paginationSchema>;

export const FILTER_PARAMS = [
  'marketplace',
  'from',
  'to',
  'since',
  'campaign',
  'query',
  'asin',
  'keyword',
  'platform',
] as const;
export type FilterParam = (typeof FILTER_PARAMS)[number];

/** How a time or date query value is written: a date, RFC 3339, or a count of units since an epoch. */
export const PARAM_FORMATS = ['date', 'rfc3339', 'epoch_s', 'epoch_ms', 'epoch_min'] as const;
export type ParamFormat = (typeof PARAM_FORMATS)[number];

export const paramSpecSchema = z.union([
  z.string().min(1),
  z.strictObject({
    name: z.string().min(1).optional().meta({ description: 'the query parameter name' }),
    format: z
      .enum(PARAM_FORMATS)
      .optional()
      .meta({ description: 'times and dates: how the value is written' }),
    epoch: z.iso.date().optional().meta({ description: 'epoch_*: the day the count starts from' }),
    list: z
      .enum(['repeat', 'comma'])
      .optional()
      .meta({ description: 'several values: the parameter repeated (default) or one comma-joined value' }),
  }),
]);
export type ParamSpec = z.infer<typeof paramSpecSchema>;
const paramsSchema = z.partialRecord(z.enum(FILTER_PARAMS), paramSpecSchema);
const fixedParamsSchema = z
  .record(z.string().min(1), z.string())
  .meta({ description: 'extra query parameters sent as they are with every request of the endpoint' });

export const DECISIONS = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'validation_failed',
  'rate_limited',
  'quota_exceeded',
  'transient',
  'failed',
] as const;
export type Decision = (typeof DECISIONS)[number];

const headerName = z.string().regex(/^[A-Za-z0-9-]+$/, 'expected an HTTP header name');
/** A signal is a header (its name) or a place in the answer's body (`{ body: path }`). */
const signalSchema = z.union([headerName, z.strictObject({ body: pathSchema })]);
export type SignalSpec = z.infer<typeof signalSchema>;

export const contractFileSchema = z.strictObject({
  version: z.literal(1).optional(),
  enums: z
    .strictObject({
      marketplace: z.record(z.string(), z.string()).optional(),
      platform: z.record(z.string(), z.string()).optional(),
      inviteStatus: z.record(z.string(), z.string()).optional(),
      salesStatus: z.record(z.string(), z.enum(['final', 'provisional'])).optional(),
    })
    .optional()
    .meta({
      description: "The API's value → ours, e.g. AMAZON: amazon; values not listed are taken as they are.",
    }),
  params: paramsSchema.optional(),
  fixedParams: fixedParamsSchema.optional(),
  pagination: paginationSchema.optional(),
  endpoints: z
    .partialRecord(
      z.enum(['book', 'bookKeywords', 'keywordSearch', 'rankings', 'reviews', 'sales', 'invites', 'error']),
      endpointSpecSchema,
    )
    .optional(),
  errors: z
    .strictObject({
      codes: z.record(z.string(), z.string()).optional(),
      statuses: z
        .record(z.string().regex(/^[1-5]\d\d$/, 'expected an HTTP status'), z.enum(DECISIONS))
        .optional(),
      monthWhen: z
        .strictObject({
          path: pathSchema.optional(),
          header: headerName.optional(),
          equals: z.union([z.string(), z.number(), z.boolean()]),
        })
        .optional()
        .meta({
          description:
            "a 429 is the month's quota (not the minute's) when the error body has this value at this path, or the 429 this value in this header (one of path or header)",
        }),
    })
    .optional(),
  rateLimit: z
    .strictObject({
      per: z.enum(['minute', 'second']).optional().meta({
        description:
          'what limit counts: requests a minute (default) or a second (0.5 = one every 2 s, read as 30 a minute); remaining is not read per second',
      }),
      retryAfter: headerName.nullable().optional(),
      reset: z
        .union([
          z.strictObject({
            header: headerName,
            format: z.enum(['epoch_s', 'epoch_ms', 'delta_s', 'rfc3339']),
          }),
          z.strictObject({ body: pathSchema, format: z.enum(['epoch_s', 'epoch_ms', 'delta_s', 'rfc3339']) }),
        ])
        .nullable()
        .optional(),
      limit: signalSchema.nullable().optional(),
      remaining: signalSchema.nullable().optional(),
      quotaLimit: signalSchema.nullable().optional(),
      quotaRemaining: signalSchema.nullable().optional(),
      quotaUsed: signalSchema
        .nullable()
        .optional()
        .meta({ description: 'requests used this month (the remaining ones are quotaLimit minus this)' }),
      quotaReset: z
        .strictObject({ body: pathSchema, format: z.enum(['epoch_s', 'epoch_ms', 'rfc3339']) })
        .nullable()
        .optional(),
    })
    .optional(),
  requestIdHeader: headerName.optional(),
  requestIdBody: pathSchema
    .optional()
    .meta({ description: 'where the request id is in every body, when no header says it' }),
});
export type ContractFile = z.infer<typeof contractFileSchema>;

export function contractJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(contractFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
