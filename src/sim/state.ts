import type { InviteStore } from './api/invites.ts';
import type { SimClock } from './clock.ts';
import type { SimDialect } from './dialect.ts';
import type { FaultInjector } from './faults.ts';
import type { KeyRegistry } from './keys.ts';
import type { LimitCounter } from './limits.ts';
import type { RequestLog } from './request-log.ts';
import type { World } from './world/index.ts';

/** Everything a running simulator holds; shared by the API and the control endpoint. */
export interface SimState {
  readonly world: World;
  readonly clock: SimClock;
  readonly keys: KeyRegistry;
  readonly limits: LimitCounter;
  readonly faults: FaultInjector;
  readonly log: RequestLog;
  readonly invites: InviteStore;
  readonly adminToken: string;
  /** Ends the delay of each slow answer in flight; called on close. */
  readonly pendingDelays: Set<() => void>;
  /** Serves the world through another contract file; undefined: the assumed contract. */
  readonly dialect: SimDialect | undefined;
}
