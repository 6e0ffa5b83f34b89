/**
 * Runs in every test file: whatever the file spawned (a redis-server, a simulator, a CLI child)
 * must be gone when its last hook has run, whatever the outcome. Registered first, so with
 * vitest's stacked hooks this afterAll runs after the file's own.
 */
import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { describeLeftovers, FILE_MARK, reapLeftovers } from './helpers/leftover-processes.ts';

/** A child being stopped may need a moment after the hook that stopped it (SIGTERM, then exit). */
const LEFTOVER_GRACE_MS = 3_000;

const mark = randomBytes(8).toString('hex');
process.env[FILE_MARK] = mark;

afterAll(async () => {
  const left = await reapLeftovers(FILE_MARK, mark, new Set([process.pid]), LEFTOVER_GRACE_MS);
  if (left.length > 0) {
    throw new Error(`this file left processes running (now killed):\n${describeLeftovers(left)}`);
  }
});
