/** Shared set-up for the API client tests: a simulator per file and its control endpoint. */
import {
  type AnalyticsClient,
  type AnalyticsClientOptions,
  createAnalyticsClient,
} from '../../src/api/index.ts';
import { parsePlan, SimControlClient, startSimulator } from '../../src/sim/index.ts';

export const KEYS = {
  main: 'sk_test_main_0123456789abcdef',
  other: 'sk_test_other_0123456789abcdef',
  /** Two requests a minute: the third is a 429 rate_limited. */
  tiny: 'sk_test_tiny_minute_0123456789',
  /** Two requests a month: the third is a 429 quota_exceeded. */
  quota: 'sk_test_tiny_month_0123456789',
  /** A plan without the keyword search or the sales endpoint. */
  limited: 'sk_test_limited_0123456789abc',
} as const;

export type Simulator = Awaited<ReturnType<typeof startSimulator>>;

export interface WorldBook {
  asin: string;
  title: string;
  author: string;
  marketplaces: string[];
  keywords: string[];
}

export interface World {
  now: number | string;
  books: WorldBook[];
  campaigns: { campaign_id: string; asin: string }[];
}

export interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  status: number;
  workspace?: string | null;
  code?: string | null;
}

export interface Fault {
  kind: 'status' | 'html' | 'slow' | 'malformed_json' | 'extra_field' | 'drop_field' | 'reset_connection';
  count?: number;
  pathPrefix?: string;
  status?: number;
  code?: string;
  retryAfter?: { seconds: number } | { date: true; seconds?: number };
  delayMs?: number;
  field?: string;
}

export async function startTestSimulator(): Promise<Simulator> {
  // Roomy limits for the keys that are not about limits: a file's walks must not hit 300/min.
  const big = parsePlan('custom:100000:100000000');
  return startSimulator({
    port: 0,
    seed: 7,
    keys: [
      { key: KEYS.main, workspace: 'ws-main', plan: big },
      { key: KEYS.other, workspace: 'ws-other', plan: big },
      { key: KEYS.tiny, workspace: 'ws-tiny', plan: parsePlan('custom:2:100000') },
      { key: KEYS.quota, workspace: 'ws-quota', plan: parsePlan('custom:100:2') },
      {
        key: KEYS.limited,
        workspace: 'ws-limited',
        plan: big,
        // The simulator takes path prefixes here (not 'GET /v1/...' templates).
        disabledEndpoints: ['/v1/keywords/search', '/v1/sales'],
      },
    ],
  });
}

/** Talks to the simulator's control endpoint with its own connection pool. */
export class SimControl extends SimControlClient {
  world(): Promise<World> {
    return this.call<World>('GET', '/_sim/world');
  }

  fault(fault: Fault): Promise<unknown> {
    return this.call('POST', '/_sim/faults', fault);
  }

  clearFaults(): Promise<unknown> {
    return this.call('DELETE', '/_sim/faults');
  }

  async requests(): Promise<LoggedRequest[]> {
    return (await this.call<{ data: LoggedRequest[] }>('GET', '/_sim/requests')).data;
  }

  /** Requests logged after `seq` (exclusive) whose path starts with `prefix`. */
  async requestsSince(seq: number, prefix = '/v1/'): Promise<LoggedRequest[]> {
    return (await this.requests()).filter((r) => r.seq > seq && r.path.startsWith(prefix));
  }

  async lastSeq(): Promise<number> {
    const all = await this.requests();
    return all.reduce((max, r) => Math.max(max, r.seq), 0);
  }

  revoke(key: string): Promise<unknown> {
    return this.call('POST', '/_sim/keys/revoke', { key });
  }

  addKey(key: string, workspace: string, plan: string): Promise<unknown> {
    return this.call('POST', '/_sim/keys', { key, workspace, plan });
  }

  advance(ms: number): Promise<unknown> {
    return this.call('POST', '/_sim/clock', { advanceMs: ms });
  }
}

export function clientFor(
  sim: Simulator,
  key: string = KEYS.main,
  extra: Partial<AnalyticsClientOptions> = {},
): AnalyticsClient {
  return createAnalyticsClient({
    baseUrl: sim.url,
    apiKey: key,
    version: 'test',
    transientRetryDelayMs: 0,
    ...extra,
  });
}

/** Awaits a promise that must reject and returns the rejection, so tests can assert on its fields. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}

/** Iterates an async iterable of pages to the end and returns the rejection it must produce. */
export async function iterationRejection(pages: AsyncIterable<unknown>): Promise<unknown> {
  return rejection(
    (async () => {
      for await (const _ of pages) {
        // read every page
      }
    })(),
  );
}
