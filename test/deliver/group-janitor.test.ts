import { expect, it } from 'vitest';
import { GroupBuffer, groupHash } from '../../src/deliver/groups.ts';
import { flushJobId, groupKeyOf } from '../../src/deliver/processor.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { makeAlert } from './pipeline-harness.ts';

const prefix = testPrefix('janitor');
const redis = testRedis(prefix);
const groups = new GroupBuffer(redis, prefix);
const timing = { nowMs: 1_000, groupWaitMs: 0, groupIntervalMs: 0, notBeforeMs: 0 };

function group(n: number) {
  const alert = makeAlert(n);
  const groupKey = groupKeyOf(alert, false);
  const hash = groupHash('chat', groupKey);
  const meta = { channelId: 'chat', groupHash: hash, groupKey, hideLowStarText: false, critical: false };
  return { alert, hash, meta, keys: groups.keys(hash) };
}

// Chaos seed 1: the janitor listed the group (buffer there, no due yet checked), the group's flush
// then took the buffer, and the janitor's claim set a due time with no flush job and nothing to send.
it('a claim on a group whose flush took its buffer meanwhile leaves no due time behind', async () => {
  const { alert, hash, meta, keys } = group(1);
  const due = await groups.admit(hash, alert, timing, meta);
  expect(await groups.take(hash, flushJobId(hash, due), due)).toEqual([alert]);
  expect(await groups.claimOrphan(hash, due + 4)).toBeNull();
  expect(await redis.exists(keys.due, keys.buffer)).toBe(0);
});

it('a claim on a group that has its flush due takes nothing; an orphan is claimed once', async () => {
  const { alert, hash, meta, keys } = group(2);
  const due = await groups.admit(hash, alert, timing, meta);
  expect(await groups.claimOrphan(hash, due + 4)).toBeNull();
  expect(await redis.get(keys.due)).toBe(String(due));
  // What a process killed between buffering and scheduling leaves: a buffer without a due time.
  await redis.del(keys.due);
  expect(await groups.claimOrphan(hash, due + 4)).toEqual({ meta, dueAt: due + 4 });
  expect(await groups.claimOrphan(hash, due + 5)).toBeNull();
  expect(await redis.get(keys.due)).toBe(String(due + 4));
});
