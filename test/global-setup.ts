import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { startPrivateRedis } from '../src/tools/private-redis.ts';
import { describeLeftovers, RUN_MARK, reapLeftovers } from './helpers/leftover-processes.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** How long the run's own workers may take to end after the last file (vitest SIGKILLs at 0.5 s). */
const LEFTOVER_GRACE_MS = 5_000;

/**
 * Gives every test file a real Redis: REDIS_URL when set, else a private server started here. And
 * fails the run when any process it started is still running at the end: every child of every
 * test file inherits the run's mark (set after the shared Redis started, so it is not counted).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env.REDIS_URL;
  const redis = fromEnv !== undefined && fromEnv !== '' ? undefined : await startPrivateRedis();
  project.provide('redisUrl', redis?.url ?? fromEnv ?? '');
  const mark = randomBytes(8).toString('hex');
  process.env[RUN_MARK] = mark;
  return async () => {
    await redis?.stop();
    const left = await reapLeftovers(RUN_MARK, mark, new Set([process.pid]), LEFTOVER_GRACE_MS);
    if (left.length === 0) return;
    // vitest only logs a teardown error: set the exit code so the run fails.
    process.exitCode = 1;
    throw new Error(
      `processes started by the tests were still running at the end (now killed):\n${describeLeftovers(left)}`,
    );
  };
}
