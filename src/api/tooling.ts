/**
 * The contract's working parts for the tools that read and write contract files (src/tools/probe:
 * the probe, the suggestion and the simulator's dialect). The product imports src/api/index.ts;
 * only src/tools/ may import this second entry point (the walls check it: `api-tooling-for-tools`).
 */
export {
  CATALOG,
  ENDPOINT_NAMES,
  type EndpointName,
  type FieldKind,
  isListEndpoint,
  type ListEndpointName,
} from './contract/catalog.ts';
export type { CompiledContract } from './contract/compile.ts';
export { DEFAULT_CONTRACT } from './contract/default.ts';
export type { FieldNode, ObjectNode } from './contract/fields.ts';
export { describeFound, FAIL, readEnum } from './contract/formats.ts';
export { mergePagination, paginationStyles } from './contract/merge.ts';
export { linkNext } from './contract/paging.ts';
export { compileSetter, isForbiddenPart, joinPath, splitPath } from './contract/path.ts';
export type {
  ContractFile,
  FieldSpec,
  FieldSpecObject,
  FilterParam,
  PaginationSpec,
} from './contract/schema.ts';
export { MARKETPLACE_CURRENCY, MARKETPLACES, PLATFORMS } from './schemas.ts';
export type { RequestDone } from './types.ts';
