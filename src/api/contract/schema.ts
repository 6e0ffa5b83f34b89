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

export interface FieldSpecObject {
  path: string;
  format?: string | undefined;
  unranked?: (null | number | 'missing')[] | undefined;
  amount?: string | undefined;
  currency?: string | undefined;
  items?: Record<string, FieldSpec> | undefined;
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
      currency: pathSchema.optional().meta({ description: 'money: where the currency code is, below path' }),
      items: z
        .record(z.string(), fieldSpecSchema)
        .optional()
        .meta({ description: 'lists: the fields of one item, paths relative to the item' }),
    }),
  ]),
);

export const endpointSpecSchema = z.strictObject({
  /** Where the object is (single answers) or where the list is (lists). */
  root: pathSchema.optional(),
  items: pathSchema.optional(),
  fields: z.record(z.string(), fieldSpecSchema).optional(),
  pagination: z.lazy(() => paginationSchema).optional(),
});
export type EndpointSpec = z.infer<typeof endpointSpecSchema>;

export const PAGINATION_STYLES = ['cursor', 'nextUrl', 'linkHeader', 'page', 'offset'] as const;
export type PaginationStyle = (typeof PAGINATION_STYLES)[number];

export const paginationSchema = z.strictObject({
  cursor: z
    .strictObject({ param: z.string().min(1), next: pathSchema, total: pathSchema.optional() })
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

export const contractFileSchema = z.strictObject({
  version: z.literal(1).optional(),
  enums: z
    .strictObject({
      marketplace: z.record(z.string(), z.string()).optional(),
      platform: z.record(z.string(), z.string()).optional(),
      inviteStatus: z.record(z.string(), z.string()).optional(),
    })
    .optional()
    .meta({
      description: "The API's value → ours, e.g. AMAZON: amazon; values not listed are taken as they are.",
    }),
  params: z.partialRecord(z.enum(FILTER_PARAMS), z.string().min(1)).optional(),
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
    })
    .optional(),
  rateLimit: z
    .strictObject({
      retryAfter: headerName.nullable().optional(),
      reset: z
        .strictObject({ header: headerName, format: z.enum(['epoch_s', 'epoch_ms', 'delta_s']) })
        .nullable()
        .optional(),
      limit: headerName.nullable().optional(),
      remaining: headerName.nullable().optional(),
      quotaLimit: headerName.nullable().optional(),
      quotaRemaining: headerName.nullable().optional(),
    })
    .optional(),
  requestIdHeader: headerName.optional(),
});
export type ContractFile = z.infer<typeof contractFileSchema>;

export function contractJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(contractFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
