/**
 * An `AnalyticsClient` that answers `getBookKeywords` from prepared payload text instead of HTTP,
 * through the client's own body handling (`parseJsonBody` + `readBody` with the contract's reader the
 * client uses: for the default contract zod for the envelope and a loop for the items; for another
 * contract its compiled accessors first), so benchmarks measure parsing and validation exactly as a
 * real answer goes through them.
 */
import { type CompiledContract, defaultContract } from '../../src/api/contract/compile.ts';
import {
  type AnalyticsClient,
  type BookKeywords,
  formatContractProblems,
  loadContractFile,
  type RequestDone,
} from '../../src/api/index.ts';
import { parseJsonBody, type ResponseContext, readBody } from '../../src/api/response.ts';
import { createSimDialect } from '../../src/tools/probe/index.ts';

const ENDPOINT = 'GET /v1/books/{asin}/keywords';

/** Parses and validates one keywords payload the way the transport does for a 200 answer. */
export function parseKeywordsPayload(
  text: string,
  contract: CompiledContract = defaultContract(),
): BookKeywords {
  const ctx: ResponseContext = { endpoint: ENDPOINT, now: Date.now, contract };
  const body = parseJsonBody({ status: 200, headers: {}, text }, ctx, undefined);
  return readBody(contract.bookKeywords, body, ctx, { status: 200, requestId: undefined, rateLimit: {} });
}

/** The contract the engine benchmark reads its answers through, and its payloads in that dialect. */
export interface BenchDialect {
  name: string;
  contract: CompiledContract;
  /** A keywords payload of the assumed contract, as this dialect answers it. */
  speak(text: string): string;
}

/**
 * `SHELFWATCH_BENCH_CONTRACT=FILE` runs the benchmark through that contract file (its payloads
 * written by the simulator's dialect writer, read through the compiled contract); else the default.
 */
export function benchDialect(file = process.env.SHELFWATCH_BENCH_CONTRACT): BenchDialect {
  if (file === undefined || file === '')
    return { name: 'default', contract: defaultContract(), speak: (t) => t };
  const load = loadContractFile(file);
  if (!load.ok) throw new Error(formatContractProblems(load));
  const dialect = createSimDialect(load.contract);
  const url = new URL('http://bench.invalid/v1/books/B000000000/keywords');
  return {
    name: file,
    contract: load.contract,
    speak: (text) =>
      JSON.stringify(
        dialect.serve('bookKeywords', url, url.origin, () => ({ status: 200, body: JSON.parse(text) })).body,
      ),
  };
}

function unused(name: string): never {
  throw new Error(`payload client: ${name} is not part of this benchmark`);
}

/**
 * `payloadOf(asin)` gives the text the next `getBookKeywords(asin)` answers with; `beforeRequest`
 * runs first, as the real client runs its budget gate.
 */
export function payloadClient(
  payloadOf: (asin: string) => string,
  // biome-ignore lint/suspicious/noConfusingVoidType: the budget gate's type (api's BeforeRequest): a hook with nothing to hand back returns void.
  beforeRequest?: () => Promise<RequestDone | void>,
  contract: CompiledContract = defaultContract(),
): AnalyticsClient {
  return {
    async getBookKeywords(asin) {
      const done = await beforeRequest?.();
      const data = parseKeywordsPayload(payloadOf(asin), contract);
      await done?.();
      return { data, meta: { status: 200, rateLimit: {}, attempts: 1 } };
    },
    getBook: () => unused('getBook'),
    searchKeywords: () => unused('searchKeywords'),
    getRankings: () => unused('getRankings'),
    inviteArcReaders: () => unused('inviteArcReaders'),
    listArcReviews: () => unused('listArcReviews'),
    listSales: () => unused('listSales'),
    readList: () => unused('readList'),
    close: async () => {},
  };
}
