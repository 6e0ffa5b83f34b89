/** The public surface of the API client: import from here, not from the files behind it. */
export {
  type AnalyticsClient,
  type AnalyticsClientOptions,
  createAnalyticsClient,
  DEFAULT_TIMEOUTS,
  DEFAULT_TRANSIENT_RETRY_DELAY_MS,
} from './client.ts';
export type { EndpointName, ListEndpointName, LogicalField } from './contract/catalog.ts';
export { CATALOG, ENDPOINT_NAMES, isListEndpoint } from './contract/catalog.ts';
export {
  type BodyReader,
  type CompiledContract,
  compileContract,
  defaultContract,
  type ReadResult,
} from './contract/compile.ts';
export { DEFAULT_CONTRACT } from './contract/default.ts';
export {
  type ContractLoad,
  type ContractProblem,
  formatContractProblems,
  loadContractFile,
  parseContract,
} from './contract/load.ts';
export { type ContractFile, contractJsonSchema } from './contract/schema.ts';
export {
  ApiError,
  type ApiErrorInit,
  ConflictError,
  describeDrift,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
  RateLimitedError,
  type RateLimitScope,
  type SchemaIssue,
  SchemaMismatchError,
  TransientError,
  type TransientReason,
  UnauthorizedError,
  type ValidationDetail,
  ValidationFailedError,
} from './errors.ts';
export { listPageReader } from './list-pages.ts';
export { type Collected, type CollectOptions, collectAll } from './pagination.ts';
export * from './schemas.ts';
export type {
  ApiResponse,
  BeforeRequest,
  CallOptions,
  HttpMethod,
  OutboundRequest,
  Page,
  RateLimitInfo,
  RequestDone,
  ResponseInfo,
  ResponseMeta,
} from './types.ts';
