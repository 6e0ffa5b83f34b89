import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Observation, TargetRef } from '../../src/model/observation.ts';
import { SnapshotEncodeError } from '../../src/snapshot/errors.ts';
import type { SnapshotStore, TargetHealth } from '../../src/snapshot/store.ts';
import {
  asStored,
  book,
  everyKind,
  HOSTILE_TITLE,
  keywords,
  reranked,
  reviews,
  sales,
  targetOf,
} from './fixtures.ts';

/**
 * The behaviour every SnapshotStore adapter must share. Each test works in a workspace of its own,
 * so one store (or one Redis prefix) can serve the whole file.
 */
export function defineSnapshotStoreConformance(name: string, makeStore: () => SnapshotStore): void {
  const freshWorkspace = () => `ws-${randomBytes(4).toString('hex')}`;
  const at = 1_790_000_000_000;

  async function commitFirst(
    store: SnapshotStore,
    target: TargetRef,
    observation: Observation,
  ): Promise<void> {
    expect(await store.commit(target, { observation, ruleState: { n: 1 }, committedAt: at }, 0)).toBe(true);
  }

  describe(`SnapshotStore conformance: ${name}`, () => {
    it('has nothing for a target never committed', async () => {
      const store = makeStore();
      const ws = freshWorkspace();
      expect(await store.get({ workspace: ws, kind: 'book', id: 'book:none' })).toBeUndefined();
      expect(await store.listTargets(ws)).toEqual([]);
    });

    it.each(everyKind())('round-trips a %s observation with its rule state', async (_kind, observation) => {
      const store = makeStore();
      const target = targetOf(freshWorkspace(), observation);
      const ruleState = { conditions: { a: { firing: true, pending: 2 } }, baseline: [1, 2, null] };
      expect(await store.commit(target, { observation, ruleState, committedAt: at }, 0)).toBe(true);
      expect(await store.get(target)).toEqual({
        observation: asStored(observation),
        ruleState,
        committedAt: at,
        pollSeq: 1,
      });
    });

    it('keeps a rule state given as bytes as those bytes, opaque, and a later JSON one as JSON', async () => {
      const store = makeStore();
      const observation = keywords(50);
      const target = targetOf(freshWorkspace(), observation);
      const bytes = new Uint8Array([2, 0, 255, 7, 0x3a, 1]);
      expect(await store.commit(target, { observation, ruleState: bytes, committedAt: at }, 0)).toBe(true);
      const stored = await store.get(target);
      const back = stored?.ruleState;
      if (!(back instanceof Uint8Array)) throw new Error(`expected bytes, got ${String(back)}`);
      expect([...back]).toEqual([...bytes]);
      expect(stored?.observation).toEqual(asStored(observation));
      // What the caller got is its own: changing it changes nothing stored.
      back.fill(0);
      expect((await store.get(target))?.ruleState).toEqual(Buffer.from(bytes));
      const empty = new Uint8Array(0);
      expect(await store.commit(target, { observation, ruleState: empty, committedAt: at + 1 }, 1)).toBe(
        true,
      );
      expect((await store.get(target))?.ruleState).toEqual(Buffer.alloc(0));
      expect(await store.commit(target, { observation, ruleState: { n: 3 }, committedAt: at + 2 }, 2)).toBe(
        true,
      );
      expect((await store.get(target))?.ruleState).toEqual({ n: 3 });
    });

    it('keeps review summaries only, so a hostile title is not stored', async () => {
      const store = makeStore();
      const observation = reviews();
      const target = targetOf(freshWorkspace(), observation);
      await commitFirst(store, target, observation);
      const stored = await store.get(target);
      const text = JSON.stringify(stored);
      expect(text).not.toContain('script');
      expect(text).not.toContain(HOSTILE_TITLE.slice(0, 9));
      expect(
        stored?.observation.kind === 'reviews' && stored.observation.reviews.map((r) => r.rating),
      ).toEqual([5, 2, 4]);
    });

    it('round-trips a 1,000-keyword list with nulls and unicode, and a changed list after it', async () => {
      const store = makeStore();
      const first = keywords(1000, 3);
      const target = targetOf(freshWorkspace(), first);
      await commitFirst(store, target, first);
      const got = await store.get(target);
      expect(got?.observation).toEqual(first);
      const changed = keywords(1000, 4);
      expect(
        await store.commit(target, { observation: changed, ruleState: null, committedAt: at + 1 }, 1),
      ).toBe(true);
      expect(await store.get(target)).toEqual({
        observation: changed,
        ruleState: null,
        committedAt: at + 1,
        pollSeq: 2,
      });
    });

    it('keeps an undefined rule state undefined', async () => {
      const store = makeStore();
      const target = targetOf(freshWorkspace(), book());
      expect(
        await store.commit(target, { observation: book(), ruleState: undefined, committedAt: at }, 0),
      ).toBe(true);
      expect((await store.get(target))?.ruleState).toBeUndefined();
    });

    it('compare-and-set: moves only from the expected seq, never twice or backwards', async () => {
      const store = makeStore();
      const target = targetOf(freshWorkspace(), keywords(50));
      const next = (n: number) => ({
        observation: reranked(keywords(50), n),
        ruleState: { n },
        committedAt: at + n,
      });
      expect(await store.commit(target, next(1), 1)).toBe(false); // nothing stored yet: only 0 matches
      expect(await store.commit(target, next(1), 0)).toBe(true);
      expect(await store.commit(target, next(2), 0)).toBe(false); // a re-run of the first poll
      expect(await store.commit(target, next(2), 1)).toBe(true);
      expect(await store.commit(target, next(3), 1)).toBe(false); // a stale replica
      expect(await store.commit(target, next(3), 7)).toBe(false); // a seq from the future
      const stored = await store.get(target);
      expect(stored?.pollSeq).toBe(2);
      expect(stored?.ruleState).toEqual({ n: 2 });
      expect(stored?.observation).toEqual(next(2).observation);
    });

    it('lets exactly one of two concurrent commits from the same seq win', async () => {
      const store = makeStore();
      const target = targetOf(freshWorkspace(), sales());
      const results = await Promise.all(
        [1, 2].map((n) =>
          store.commit(target, { observation: sales(), ruleState: { n }, committedAt: at }, 0),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store.get(target))?.pollSeq).toBe(1);
    });

    it('refuses an observation of another kind than its target, and a bad seq', async () => {
      const store = makeStore();
      const target: TargetRef = { workspace: freshWorkspace(), kind: 'book', id: 'book:1' };
      const next = { observation: sales(), ruleState: null, committedAt: at };
      await expect(store.commit(target, next, 0)).rejects.toBeInstanceOf(SnapshotEncodeError);
      await expect(store.commit(target, { ...next, observation: book() }, -1)).rejects.toBeInstanceOf(
        RangeError,
      );
      expect(await store.get(target)).toBeUndefined();
    });

    it('gives default health, then what was set, with credentials masked', async () => {
      const store = makeStore();
      const target: TargetRef = { workspace: freshWorkspace(), kind: 'book', id: 'book:1' };
      expect(await store.getHealth(target)).toEqual({
        consecutiveFailures: 0,
        lastOutcome: null,
        lastPollAt: null,
        lastError: null,
        costPerPoll: null,
        sourceHealth: undefined,
      });
      const health: TargetHealth = {
        consecutiveFailures: 2,
        lastOutcome: 'error',
        lastPollAt: at,
        lastError: 'UnauthorizedError: 401 for Bearer pa_live_SECRET1',
        costPerPoll: 1.3,
        sourceHealth: { down: true, since: at - 1 },
      };
      await store.setHealth(target, health);
      const got = await store.getHealth(target);
      expect(got).toEqual({ ...health, lastError: 'UnauthorizedError: 401 for Bearer [redacted]' });
      await store.setHealth(target, {
        ...health,
        lastOutcome: 'ok',
        lastError: null,
        consecutiveFailures: 0,
      });
      expect((await store.getHealth(target)).lastOutcome).toBe('ok');
      expect(await store.listTargets(target.workspace)).toEqual([]); // health alone is no snapshot
    });

    it('lists the workspace targets that have a snapshot, sorted, and nothing of other workspaces', async () => {
      const store = makeStore();
      const ws = freshWorkspace();
      const other = freshWorkspace();
      await commitFirst(store, targetOf(ws, book(), 'book:B2:US'), book());
      await commitFirst(store, targetOf(ws, book(), 'book:B1:US'), book());
      await commitFirst(store, targetOf(ws, sales(), 'sales:US'), sales());
      await commitFirst(store, targetOf(other, book(), 'book:B9:US'), book());
      expect(await store.listTargets(ws)).toEqual(['book:B1:US', 'book:B2:US', 'sales:US']);
      expect(await store.listTargets(other)).toEqual(['book:B9:US']);
    });

    it('keeps targets apart whose workspace and id would join to the same text', async () => {
      const store = makeStore();
      const ws = freshWorkspace();
      const a: TargetRef = { workspace: `${ws}:x`, kind: 'book', id: 'y' };
      const b: TargetRef = { workspace: ws, kind: 'book', id: 'x:y' };
      const c: TargetRef = { workspace: ws, kind: 'book', id: '{x}:y' };
      await commitFirst(store, a, book({ asin: 'A' }));
      expect(await store.get(b)).toBeUndefined();
      await commitFirst(store, b, book({ asin: 'B' }));
      await commitFirst(store, c, book({ asin: 'C' }));
      expect((await store.get(a))?.observation).toMatchObject({ asin: 'A' });
      expect((await store.get(b))?.observation).toMatchObject({ asin: 'B' });
      expect((await store.get(c))?.observation).toMatchObject({ asin: 'C' });
      expect(await store.listTargets(ws)).toEqual(['x:y', '{x}:y']);
    });

    it('deletes a target: snapshot, health and listing; a later first commit starts at seq 0', async () => {
      const store = makeStore();
      const ws = freshWorkspace();
      const gone = targetOf(ws, keywords(20), 'keywords:gone');
      const kept = targetOf(ws, keywords(20), 'keywords:kept');
      await commitFirst(store, gone, keywords(20));
      await commitFirst(store, kept, keywords(20));
      await store.setHealth(gone, { ...(await store.getHealth(gone)), consecutiveFailures: 4 });
      await store.delete(gone);
      expect(await store.get(gone)).toBeUndefined();
      expect((await store.getHealth(gone)).consecutiveFailures).toBe(0);
      expect(await store.listTargets(ws)).toEqual(['keywords:kept']);
      // The other target shares the dictionary: it must still decode.
      expect((await store.get(kept))?.observation).toEqual(keywords(20));
      expect(
        await store.commit(gone, { observation: keywords(20), ruleState: null, committedAt: at }, 1),
      ).toBe(false);
      await commitFirst(store, gone, keywords(20));
      await store.delete({ workspace: ws, kind: 'book', id: 'never-existed' });
    });
  });
}
