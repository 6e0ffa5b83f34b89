import { describe, expect, it } from 'vitest';
import { MemorySnapshotStore } from '../../src/snapshot/store.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { keywords, reranked, targetOf } from './fixtures.ts';
import { defineSnapshotStoreConformance } from './store-conformance.ts';

defineSnapshotStoreConformance('memory', () => new MemorySnapshotStore());

describe('MemorySnapshotStore', () => {
  it('expires snapshots, dictionaries and health on its clock, refreshed by each write', async () => {
    const clock = new ManualClock(1_000_000);
    const store = new MemorySnapshotStore({ ttlMs: 1000, clock });
    const target = targetOf('ws', keywords(100));
    expect(
      await store.commit(target, { observation: keywords(100), ruleState: null, committedAt: 1 }, 0),
    ).toBe(true);
    await store.setHealth(target, { ...(await store.getHealth(target)), consecutiveFailures: 1 });
    expect(store.stats().keys).toBe(3);
    clock.advance(600);
    const next = reranked(keywords(100), 2);
    expect(await store.commit(target, { observation: next, ruleState: null, committedAt: 2 }, 1)).toBe(true);
    clock.advance(600); // 1,200 ms after the first commit, 600 after the second
    expect((await store.get(target))?.observation).toEqual(next);
    expect(await store.listTargets('ws')).toEqual([target.id]);
    expect((await store.getHealth(target)).consecutiveFailures).toBe(0); // health was not refreshed
    clock.advance(400);
    expect(await store.get(target)).toBeUndefined();
    expect(await store.listTargets('ws')).toEqual([]);
    expect(store.stats()).toEqual({ keys: 0, bytes: 0 });
  });

  it('stores one dictionary for every snapshot of the same keyword list', async () => {
    const list = keywords(1000);
    const fill = async (ids: string[]) => {
      const store = new MemorySnapshotStore();
      for (const id of ids) {
        const target = targetOf('ws', list, id);
        await store.commit(target, { observation: list, ruleState: null, committedAt: 1 }, 0);
        await store.commit(target, { observation: reranked(list, 5), ruleState: null, committedAt: 2 }, 1);
      }
      return store;
    };
    const one = (await fill(['keywords:a'])).stats();
    const twoStore = await fill(['keywords:a', 'keywords:b']);
    const two = twoStore.stats();
    expect(one.keys).toBe(2);
    expect(two.keys).toBe(3);
    // The second target adds only its ranks (~4 KB), not another ~20 KB of keyword strings.
    expect(two.bytes - one.bytes).toBeLessThan(4200);
    expect((await twoStore.get(targetOf('ws', list, 'keywords:b')))?.observation).toEqual(reranked(list, 5));
  });
});
