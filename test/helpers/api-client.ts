/** The API client's side of the fixture layer: the keys of the API tests' simulator, a client, rejections. */
import {
  type AnalyticsClient,
  type AnalyticsClientOptions,
  createAnalyticsClient,
} from '../../src/api/index.ts';
import { parsePlan, type RunningSimulator } from '../../src/sim/index.ts';
import type { SimFixtureOptions } from './sim.ts';

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

const ROOMY = 'custom:100000:100000000';

/**
 * The API tests' simulator: the main key with roomy limits (a file's walks must not hit 300/min)
 * and one key per limit the client must handle.
 */
export const API_SIM: SimFixtureOptions = {
  seed: 7,
  key: KEYS.main,
  workspace: 'ws-main',
  plan: ROOMY,
  otherKeys: [
    { key: KEYS.other, workspace: 'ws-other', plan: parsePlan(ROOMY) },
    { key: KEYS.tiny, workspace: 'ws-tiny', plan: parsePlan('custom:2:100000') },
    { key: KEYS.quota, workspace: 'ws-quota', plan: parsePlan('custom:100:2') },
    {
      key: KEYS.limited,
      workspace: 'ws-limited',
      plan: parsePlan(ROOMY),
      // The simulator takes path prefixes here (not 'GET /v1/...' templates).
      disabledEndpoints: ['/v1/keywords/search', '/v1/sales'],
    },
  ],
};

export function clientFor(
  sim: Pick<RunningSimulator, 'url'>,
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
