/**
 * A dialect of the API: the simulator's world served through another contract file (`sim --contract`).
 * The simulator builds every answer in the assumed contract's shape; a dialect translates the
 * request's query into that shape and the answer out of it. The implementation is the contract's
 * own compiler read in reverse (src/tools/probe/serve.ts), handed in by whoever starts the simulator:
 * the simulator itself stays free of the client's code.
 */

export type SimEndpoint =
  | 'book'
  | 'bookKeywords'
  | 'keywordSearch'
  | 'rankings'
  | 'reviews'
  | 'sales'
  | 'invites';

export interface SimAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface SimDialect {
  /**
   * Serves one request: `run` answers a query in the assumed contract (it may be called more than
   * once, to page a listing the dialect numbers by pages or offsets); the result is in the dialect.
   * `origin` is the simulator's address as the client sees it, for next-page URLs; `nowMs` the
   * simulator's clock (its day in progress).
   */
  serve(
    endpoint: SimEndpoint,
    url: URL,
    origin: string,
    run: (search: URLSearchParams) => SimAnswer,
    nowMs: number,
  ): SimAnswer;
  /** An error body of the assumed contract, in the dialect. */
  errorBody(body: unknown): unknown;
  /** Headers an error answer adds, from its body in the assumed contract (the month's 429 told by a header). */
  errorHeaders?(body: unknown): Record<string, string>;
  /** Rate-limit and request-id headers of the assumed contract, renamed and re-formatted. */
  headers(headers: Record<string, string>, nowMs: number): Record<string, string>;
  /** A request body in the dialect → the assumed contract's (the invite body's names and nesting). */
  requestBody?(endpoint: SimEndpoint, text: string): string;
  /** The whole answer once more: signals the dialect states in the body moved there from the headers. */
  finish?(answer: SimAnswer, nowMs: number): SimAnswer;
}
