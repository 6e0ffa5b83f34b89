import type { World } from '../world/index.ts';
import type { InviteStore } from './invites.ts';

export interface ApiContext {
  readonly world: World;
  readonly invites: InviteStore;
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
}

export type Handler = (ctx: ApiContext) => ApiResult;
