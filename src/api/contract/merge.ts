/**
 * A user's contract file says only what differs from the default: it is merged over DEFAULT_CONTRACT.
 * Objects merge key by key; a field given as a path string keeps the default's format and items;
 * naming a pagination style replaces the default's style (two styles in one file is an error).
 */

import { normalizeSpec } from './fields.ts';
import {
  type ContractFile,
  type EndpointSpec,
  type FieldSpec,
  PAGINATION_STYLES,
  type PaginationSpec,
} from './schema.ts';

export function mergeFields(
  base: Readonly<Record<string, FieldSpec>> | undefined,
  over: Readonly<Record<string, FieldSpec>> | undefined,
): Record<string, FieldSpec> {
  const out: Record<string, FieldSpec> = { ...base };
  for (const [name, spec] of Object.entries(over ?? {})) {
    const before = out[name];
    if (before === undefined) {
      out[name] = spec;
      continue;
    }
    const b = normalizeSpec(before);
    const o = normalizeSpec(spec);
    const merged = { ...b, ...o };
    // No currency member ({ fixed }, { fromMarketplace }): the value at path is the amount, so the
    // default's `amount` (a member beside the currency) must not come along.
    if (typeof o.currency === 'object' && o.amount === undefined) delete merged.amount;
    if (b.items !== undefined || o.items !== undefined) merged.items = mergeFields(b.items, o.items);
    out[name] = merged;
  }
  return out;
}

/** The style keys a spec names (cursor, nextUrl, …), without its `limit`. */
export function paginationStyles(spec: PaginationSpec | undefined): PaginationSpec {
  const out: PaginationSpec = {};
  for (const style of PAGINATION_STYLES)
    if (spec?.[style] !== undefined) Object.assign(out, { [style]: spec[style] });
  return out;
}

export function mergePagination(
  base: PaginationSpec | undefined,
  over: PaginationSpec | undefined,
): PaginationSpec {
  if (over === undefined) return { ...base };
  const styles = paginationStyles(over);
  const out: PaginationSpec = { ...base };
  if (Object.keys(styles).length > 0) for (const style of PAGINATION_STYLES) delete out[style];
  Object.assign(out, styles);
  if (over.limit !== undefined) out.limit = { ...base?.limit, ...over.limit };
  return out;
}

function mergeEndpoint(base: EndpointSpec | undefined, over: EndpointSpec | undefined): EndpointSpec {
  const out: EndpointSpec = { ...base, ...over, fields: mergeFields(base?.fields, over?.fields) };
  if (base?.pagination !== undefined || over?.pagination !== undefined) {
    out.pagination = mergePagination(base?.pagination, over?.pagination);
  } else {
    delete out.pagination;
  }
  return out;
}

export function mergeContract(base: ContractFile, over: ContractFile): ContractFile {
  const endpoints: NonNullable<ContractFile['endpoints']> = {};
  const names = new Set([...Object.keys(base.endpoints ?? {}), ...Object.keys(over.endpoints ?? {})]);
  for (const name of names) {
    const key = name as keyof typeof endpoints;
    endpoints[key] = mergeEndpoint(base.endpoints?.[key], over.endpoints?.[key]);
  }
  return {
    version: 1,
    enums: {
      marketplace: { ...base.enums?.marketplace, ...over.enums?.marketplace },
      platform: { ...base.enums?.platform, ...over.enums?.platform },
      inviteStatus: { ...base.enums?.inviteStatus, ...over.enums?.inviteStatus },
      salesStatus: { ...base.enums?.salesStatus, ...over.enums?.salesStatus },
    },
    params: { ...base.params, ...over.params },
    fixedParams: { ...base.fixedParams, ...over.fixedParams },
    pagination: mergePagination(base.pagination, over.pagination),
    endpoints,
    errors: {
      codes: { ...base.errors?.codes, ...over.errors?.codes },
      statuses: { ...base.errors?.statuses, ...over.errors?.statuses },
      // Replaced whole, never merged key by key: a path over a header would be both at once.
      ...((over.errors?.monthWhen ?? base.errors?.monthWhen) === undefined
        ? {}
        : { monthWhen: over.errors?.monthWhen ?? base.errors?.monthWhen }),
    },
    rateLimit: { ...base.rateLimit, ...over.rateLimit },
    requestIdHeader: over.requestIdHeader ?? base.requestIdHeader,
    ...((over.requestIdBody ?? base.requestIdBody) === undefined
      ? {}
      : { requestIdBody: over.requestIdBody ?? base.requestIdBody }),
  } as ContractFile;
}
