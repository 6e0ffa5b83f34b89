import type { World } from '../world/index.ts';

export interface ApiContext {
  readonly world: World;
  readonly invites: InviteEndpoint;
  readonly nowMs: number;
  readonly workspace: string;
  /** Decoded path parameters, e.g. `asin`. */
  readonly pathParams: Readonly<Record<string, string>>;
  readonly search: URLSearchParams;
  readonly bodyText: string;
  readonly idempotencyKey: string | undefined;
}

export interface ApiResult {
  status: number;
  body: unknown;
  /** Headers of the answer itself (a dialect's Link header); the limits' headers are added by the server. */
  headers?: Record<string, string>;
}

export type Handler = (ctx: ApiContext) => ApiResult;

/**
 * The invite endpoint keeps answers between requests (`InviteStore` in invites.ts). Declared here
 * as what the router calls, so the context does not import the store that imports the context.
 */
export interface InviteEndpoint {
  handle(ctx: ApiContext): ApiResult;
}
