/**
 * What zod cannot see in a contract file: logical field names per endpoint, formats per kind of
 * field, options on fields they do not fit, two pagination styles at once and paths that cannot both
 * exist. Each problem names the place in the file and the fix.
 */
import { suggest } from '../../util/suggest.ts';
import {
  CATALOG,
  type EndpointName,
  FORMATS_BY_KIND,
  INVITE_REQUEST,
  isListEndpoint,
  type LogicalField,
} from './catalog.ts';
import { normalizeSpec } from './fields.ts';
import { styleOf } from './paging.ts';
import { splitPath } from './path.ts';
import type { ContractFile, FieldSpec, FieldSpecObject, PaginationSpec } from './schema.ts';

export interface ContractProblem {
  /** Where in the contract file, e.g. `endpoints.book.fields.bsrRank.format`. */
  path: string;
  message: string;
  hint?: string;
}

function checkPagination(spec: PaginationSpec | undefined, at: string, out: ContractProblem[]): void {
  if (spec === undefined) return;
  const styles = styleOf(spec);
  if (styles.length > 1) {
    out.push({
      path: at,
      message: `two pagination styles at once: ${styles.join(' and ')}`,
      hint: `an API pages one way: keep only the one its answers use (${styles.join(' or ')})`,
    });
  }
}

function checkFields(
  catalog: Readonly<Record<string, LogicalField>>,
  specs: Readonly<Record<string, FieldSpec>>,
  at: string,
  out: ContractProblem[],
): void {
  const known = Object.keys(catalog);
  for (const [name, raw] of Object.entries(specs)) {
    const where = `${at}.${name}`;
    const logical = catalog[name];
    if (logical === undefined) {
      const close = suggest(name, known);
      out.push({
        path: where,
        message: `unknown logical field "${name}"`,
        hint: close !== undefined ? `did you mean "${close}"?` : `the fields here are: ${known.join(', ')}`,
      });
      continue;
    }
    const spec = normalizeSpec(raw);
    const formats = FORMATS_BY_KIND[logical.kind];
    if (spec.format !== undefined) {
      if (formats === undefined) {
        out.push({
          path: `${where}.format`,
          message: `"${name}" (${logical.kind}) takes no format`,
          hint: 'remove format',
        });
      } else if (!formats.includes(spec.format)) {
        const close = suggest(spec.format, formats);
        out.push({
          path: `${where}.format`,
          message: `unknown format "${spec.format}" for ${logical.kind} field "${name}"`,
          hint: `use one of ${formats.join(', ')}${close === undefined ? '' : ` (did you mean "${close}"?)`}`,
        });
      }
    }
    if (spec.unranked !== undefined && logical.kind !== 'rank' && logical.kind !== 'rating') {
      out.push({
        path: `${where}.unranked`,
        message: `"${name}" is not a rank or rating`,
        hint: 'remove unranked',
      });
    }
    const numeric = ['int', 'number', 'rank', 'rating'].includes(logical.kind);
    if (spec.scale !== undefined && !numeric) {
      out.push({ path: `${where}.scale`, message: `"${name}" is not a number`, hint: 'remove scale' });
    }
    if (spec.epoch !== undefined && !/^epoch_/.test(spec.format ?? '')) {
      out.push({
        path: `${where}.epoch`,
        message: `epoch applies to epoch_s, epoch_ms and epoch_min, not to ${spec.format ?? 'the default format'}`,
        hint: 'set format: epoch_s (or epoch_ms, epoch_min), or remove epoch',
      });
    }
    if (spec.layout !== undefined && logical.kind !== 'list') {
      out.push({ path: `${where}.layout`, message: `"${name}" is not a list`, hint: 'remove layout' });
    }
    if (
      (spec.amount !== undefined || spec.currency !== undefined || spec.noFigure !== undefined) &&
      logical.kind !== 'money'
    ) {
      out.push({
        path: where,
        message: `"${name}" is not money: amount, currency and noFigure do not apply`,
        hint: 'remove them',
      });
    }
    if (logical.kind === 'money') checkMoney(catalog, spec, where, out);
    if (spec.items !== undefined) {
      if (logical.items === undefined) {
        out.push({ path: `${where}.items`, message: `"${name}" is not a list`, hint: 'remove items' });
      } else {
        checkFields(logical.items, spec.items, `${where}.items`, out);
      }
    }
  }
}

const CURRENCIES: readonly string[] = Intl.supportedValuesOf('currency');

/** A money field without a currency member: a known ISO 4217 code, or a marketplace to take it from. */
function checkMoney(
  catalog: Readonly<Record<string, LogicalField>>,
  spec: FieldSpecObject,
  where: string,
  out: ContractProblem[],
): void {
  const currency = spec.currency;
  if (typeof currency !== 'object') return;
  if ('fixed' in currency && !CURRENCIES.includes(currency.fixed)) {
    const close = suggest(currency.fixed, CURRENCIES);
    out.push({
      path: `${where}.currency.fixed`,
      message: `unknown currency "${currency.fixed}"`,
      hint: `use an ISO 4217 code in capitals, such as USD, EUR, GBP or JPY${close === undefined ? '' : ` (did you mean "${close}"?)`}`,
    });
  }
  if ('fromMarketplace' in currency && !Object.values(catalog).some((f) => f.kind === 'marketplace')) {
    out.push({
      path: `${where}.currency.fromMarketplace`,
      message: 'this object has no marketplace to take the currency from',
      hint: 'say the currency: currency: { fixed: USD }, or the path of its member',
    });
  }
  if (spec.path === '' && (spec.amount ?? '') === '') {
    out.push({
      path: `${where}.amount`,
      message: 'with no currency member, path or amount must name the amount itself',
      hint: 'e.g. path: royaltyCents (or path: "" with amount: royaltyCents)',
    });
  }
}

/** Two fields whose paths nest (`bsr` and `bsr.rank`) cannot both hold a value, unless one is a list or money. */
function checkPathConflicts(
  catalog: Readonly<Record<string, LogicalField>>,
  specs: Readonly<Record<string, FieldSpec>>,
  at: string,
  out: ContractProblem[],
): void {
  const entries = Object.entries(specs)
    .filter(([name]) => catalog[name] !== undefined)
    .map(([name, spec]) => ({ name, spec: normalizeSpec(spec), kind: catalog[name]?.kind }));
  for (const a of entries) {
    for (const b of entries) {
      if (a === b || a.kind === 'money' || a.kind === 'list') continue;
      const pa = splitPath(a.spec.path);
      const pb = splitPath(b.spec.path);
      const nests = pa.length < pb.length && pa.every((part, i) => pb[i] === part);
      const same = a.name < b.name && a.spec.path === b.spec.path && b.kind !== 'money';
      if (nests || same) {
        out.push({
          path: `${at}.${b.name}.path`,
          message: `"${b.spec.path}" cannot exist: "${a.name}" is a single value at "${a.spec.path}"`,
          hint: `give "${a.name}" and "${b.name}" the paths where the answer really has them`,
        });
      }
    }
  }
  for (const entry of entries) {
    const items = catalog[entry.name]?.items;
    if (items !== undefined && entry.spec.items !== undefined) {
      checkPathConflicts(items, entry.spec.items, `${at}.${entry.name}.items`, out);
    }
  }
}

/** The month's 429 is told by one thing: a field of the error body or a header of the answer. */
function checkMonthWhen(
  when: NonNullable<ContractFile['errors']>['monthWhen'],
  out: ContractProblem[],
): void {
  if (when === undefined) return;
  if (when.path !== undefined && when.header !== undefined)
    out.push({
      path: 'errors.monthWhen',
      message: "a path and a header at once: the month's 429 is told by one of them",
      hint: 'keep path when the error body says it (limitScope: MONTHLY), header when a header does (X-RateLimit-Scope: month)',
    });
  if (when.path === undefined && when.header === undefined)
    out.push({
      path: 'errors.monthWhen',
      message: "no path and no header: nothing tells the month's 429",
      hint: 'add path (a field of the error body) or header (a header of the 429), e.g. { header: X-RateLimit-Scope, equals: month }',
    });
}

/** Problems of a user's file (the names and options it gives), before merging. */
export function checkContractFile(file: ContractFile): ContractProblem[] {
  const out: ContractProblem[] = [];
  const finality = normalizeFinality(file);
  if (finality === 'enum' && Object.keys(file.enums?.salesStatus ?? {}).length === 0) {
    out.push({
      path: 'endpoints.sales.fields.final.format',
      message: 'format enum needs the wire values: enums.salesStatus is empty',
      hint: 'add enums.salesStatus, e.g. { FINAL: final, PROVISIONAL: provisional }',
    });
  }
  checkPagination(file.pagination, 'pagination', out);
  checkMonthWhen(file.errors?.monthWhen, out);
  if (
    file.rateLimit?.per === 'second' &&
    file.rateLimit.remaining !== undefined &&
    file.rateLimit.remaining !== null
  ) {
    out.push({
      path: 'rateLimit.remaining',
      message: "a per-second limit's remaining count says nothing of the minute the budget counts",
      hint: 'remove remaining (or set it to null); the limit is read as 60 times it a minute',
    });
  }
  for (const [name, spec] of Object.entries(file.endpoints ?? {})) {
    const endpoint = name as EndpointName;
    const at = `endpoints.${endpoint}`;
    if (spec === undefined) continue;
    checkFields(CATALOG[endpoint], spec.fields ?? {}, `${at}.fields`, out);
    const list = isListEndpoint(endpoint);
    if (list && spec.root !== undefined) {
      out.push({
        path: `${at}.root`,
        message: `${endpoint} answers a list: say where it is with items, not root`,
        hint: 'rename root to items',
      });
    }
    if (!list && spec.items !== undefined) {
      out.push({
        path: `${at}.items`,
        message: `${endpoint} answers one object: say where it is with root`,
        hint: 'rename items to root',
      });
    }
    // Book keywords are one object whose keyword list an API may page; the others cannot be paged.
    if (!list && endpoint !== 'bookKeywords' && spec.pagination !== undefined) {
      out.push({
        path: `${at}.pagination`,
        message: `${endpoint} is one object, not a list: it cannot come in pages`,
        hint: 'remove pagination here (lists and bookKeywords can have it)',
      });
    }
    if (spec.request !== undefined) {
      if (endpoint !== 'invites') {
        out.push({
          path: `${at}.request`,
          message: `${endpoint} sends no body: only invites has a request`,
          hint: 'move it to endpoints.invites.request',
        });
      } else {
        checkFields(INVITE_REQUEST, spec.request.fields ?? {}, `${at}.request.fields`, out);
        checkPathConflicts(INVITE_REQUEST, spec.request.fields ?? {}, `${at}.request.fields`, out);
      }
    }
    for (const name of Object.keys(spec.fixedParams ?? {})) {
      if (name === '')
        out.push({ path: `${at}.fixedParams`, message: 'an empty parameter name', hint: 'name it' });
    }
    checkPagination(spec.pagination, `${at}.pagination`, out);
  }
  return out;
}

function normalizeFinality(file: ContractFile): string | undefined {
  const spec = file.endpoints?.sales?.fields?.final;
  return spec === undefined ? undefined : normalizeSpec(spec).format;
}

/** Problems of the merged contract: paths that cannot all exist. */
export function checkMergedContract(merged: ContractFile): ContractProblem[] {
  const out: ContractProblem[] = [];
  for (const [name, spec] of Object.entries(merged.endpoints ?? {})) {
    const endpoint = name as EndpointName;
    checkPathConflicts(CATALOG[endpoint], spec?.fields ?? {}, `endpoints.${endpoint}.fields`, out);
  }
  return out;
}
