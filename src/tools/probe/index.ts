/** The probe, the contract suggestion and the simulator's dialect: tools that read and write contract files. */
export { analyseAnswer, type EndpointAnalysis, type RecordedAnswer, valueAt } from './probe-analyse.ts';
export { RecordingError, readRecording, writeRecording } from './probe-record.ts';
export {
  DEFAULT_MAX_PROBE_REQUESTS,
  PROBED_ENDPOINTS,
  type ProbedEndpoint,
  ProbeError,
  parseEndpoints,
  plannedEndpoints,
  plannedRequests,
  probeService,
} from './probe-run.ts';
export { observedPageSize } from './probe-tail.ts';
export { type ContractSimDialect, createSimDialect } from './serve.ts';
export type { SimDialectOptions } from './serve-query.ts';
export { suggestContract } from './suggest-contract.ts';
export { lineDiff } from './suggest-diff.ts';
