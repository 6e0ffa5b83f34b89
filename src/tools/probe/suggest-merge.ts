/** Probe's suggestion over the user's contract: what answers cannot show stays as the user wrote it. */
import { isDeepStrictEqual } from 'node:util';
import { type ContractFile, DEFAULT_CONTRACT } from '../../api/tooling.ts';

const DEFAULTS = DEFAULT_CONTRACT as unknown as ContractFile;

/** The keys of `section` whose value differs from the default's: the user's own, not the defaults. */
function own<T extends object>(section: T | undefined, base: T | undefined): Partial<T> | undefined {
  if (section === undefined) return undefined;
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(section)) {
    if (!isDeepStrictEqual(value, (base as Record<string, unknown> | undefined)?.[key]))
      (out as Record<string, unknown>)[key] = value;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * The suggestion is merged over the contract it checked: what answers cannot show (parameters, fixed
 * parameters, the request body, errors, rate-limit signals, a list's own pagination) is kept as the
 * user wrote it, and only what the answers showed is replaced.
 */
export function keepUsersSections(
  source: ContractFile,
  suggestion: ContractFile,
  endpoints: Record<string, unknown>,
): void {
  const params = own(source.params, DEFAULTS.params);
  // Names probe found by asking win over the user's for the same filter.
  if (params !== undefined) suggestion.params = { ...params, ...suggestion.params };
  if (source.fixedParams !== undefined && Object.keys(source.fixedParams).length > 0)
    suggestion.fixedParams = source.fixedParams;
  const codes = own(source.errors?.codes, DEFAULTS.errors?.codes);
  const statuses = own(source.errors?.statuses, DEFAULTS.errors?.statuses);
  if (codes !== undefined || statuses !== undefined)
    suggestion.errors = { ...source.errors } as ContractFile['errors'];
  const rateLimit = own(source.rateLimit, DEFAULTS.rateLimit);
  if (rateLimit !== undefined) suggestion.rateLimit = rateLimit;
  if (source.requestIdBody !== undefined) suggestion.requestIdBody = source.requestIdBody;
  if (suggestion.pagination === undefined) {
    if (source.pagination !== undefined && !isDeepStrictEqual(source.pagination, DEFAULTS.pagination))
      suggestion.pagination = source.pagination;
  } else if (
    source.pagination?.limit !== undefined &&
    suggestion.pagination.limit === undefined &&
    !isDeepStrictEqual(source.pagination.limit, DEFAULTS.pagination?.limit)
  ) {
    suggestion.pagination = { ...suggestion.pagination, limit: source.pagination.limit };
  }
  const enums = own(source.enums, DEFAULTS.enums);
  if (enums !== undefined) {
    const ours = suggestion.enums;
    suggestion.enums = {
      marketplace: { ...source.enums?.marketplace, ...ours?.marketplace },
      platform: { ...source.enums?.platform, ...ours?.platform },
      inviteStatus: { ...source.enums?.inviteStatus, ...ours?.inviteStatus },
      salesStatus: { ...source.enums?.salesStatus, ...ours?.salesStatus },
    };
  }
  for (const [name, spec] of Object.entries(source.endpoints ?? {})) {
    const own = { ...(endpoints[name] as Record<string, unknown> | undefined) };
    for (const key of ['params', 'fixedParams', 'request', 'pagination'] as const) {
      if (own[key] === undefined && spec?.[key] !== undefined) own[key] = spec[key];
      // Parameters probe found are added to the user's, name by name.
      else if ((key === 'params' || key === 'fixedParams') && spec?.[key] !== undefined)
        own[key] = { ...spec[key], ...(own[key] as object) };
    }
    if (Object.keys(own).length > 0) endpoints[name] = own;
  }
}
