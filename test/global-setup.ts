import type { TestProject } from 'vitest/node';
import { startPrivateRedis } from '../src/ops/private-redis.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** Gives every test file a real Redis: REDIS_URL when set, else a private server started here. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv !== undefined && fromEnv !== '') {
    project.provide('redisUrl', fromEnv);
    return async () => {};
  }
  const redis = await startPrivateRedis();
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
