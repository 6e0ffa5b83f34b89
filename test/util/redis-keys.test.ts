import { describe, expect, it } from 'vitest';
import { answeredBatchesKey, arcInviteIdsKey, arcInvitesKey } from '../../src/arc/keys.ts';
import { budgetKeys, pauseEpisodeKey } from '../../src/budget/keys.ts';
import { digestStateKey } from '../../src/digest/keys.ts';
import {
  historyBookKey,
  historyCompactedKey,
  historyDayKey,
  historyMonthKey,
  historySalesKey,
  historySeriesKey,
} from '../../src/history/keys.ts';
import { digestReconcileLockKey, reconcileLockKey } from '../../src/jobs/keys.ts';
import { leaseKey } from '../../src/poll/keys.ts';
import { SnapshotKeys } from '../../src/snapshot/keys.ts';
import { keyPart } from '../../src/util/redis-keys.ts';

const P = '{shelfwatch}';

describe('keyPart', () => {
  it('is the identity for every configurable workspace id, as each room wrote it before', () => {
    for (const id of ['acme', 'demo-studio', 'a', '0-9', 'x'.repeat(64)]) {
      expect(keyPart(id)).toBe(id);
      expect(keyPart(id)).toBe(encodeURIComponent(id));
    }
  });

  it('escapes what would make a key ambiguous or open a hash tag, injectively', () => {
    expect(keyPart('a:b')).toBe('a%3Ab');
    expect(keyPart('{acme}')).toBe('%7Bacme%7D');
    expect(keyPart('100%')).toBe('100%25');
    const ids = ['a:b', 'a%3Ab', 'a%253Ab', '{a}', '%7Ba%7D'];
    expect(new Set(ids.map(keyPart)).size).toBe(ids.length);
  });
});

describe('every key, byte for byte as stored before one helper built them', () => {
  it('keeps the strings existing deployments read back', () => {
    const budget = budgetKeys(P, 'acme');
    const snap = new SnapshotKeys(P);
    const ref = { workspace: 'acme', kind: 'book', id: 'book/B0TEST/US' } as const;
    const book = historyBookKey(P, 'acme', 'B0TEST', 'com');
    expect([
      budget.window,
      budget.pause,
      budget.month('2026-11'),
      pauseEpisodeKey(P, 'acme'),
      snap.snapshot(ref),
      snap.health(ref),
      snap.targets('acme'),
      snap.dictionary('acme', 'ab12'),
      leaseKey(P, 'acme', 'book/B0TEST/US'),
      book,
      historyDayKey(book, Date.UTC(2026, 10, 28)),
      historySeriesKey(book),
      historyMonthKey(book, Date.UTC(2026, 10, 1)),
      historyCompactedKey(book),
      historySalesKey(book, Date.UTC(2026, 10, 1)),
      digestStateKey(P, 'sent', 'acme', 'mail', '2026-11-28'),
      answeredBatchesKey(P, 'acme', 'camp'),
      arcInvitesKey(P, 'acme', 'camp'),
      arcInviteIdsKey(P, 'acme', 'camp'),
      reconcileLockKey(P),
      digestReconcileLockKey(P),
    ]).toEqual([
      '{shelfwatch}:budget:acme:window',
      '{shelfwatch}:budget:acme:pause',
      '{shelfwatch}:budget:acme:month:2026-11',
      '{shelfwatch}:budget:acme:pause:episode',
      '{shelfwatch}:snap:acme:book/B0TEST/US',
      '{shelfwatch}:health:acme:book/B0TEST/US',
      '{shelfwatch}:targets:acme',
      '{shelfwatch}:kwdict:acme:ab12',
      '{shelfwatch}:lease:acme:book/B0TEST/US',
      '{shelfwatch}:hist:acme:B0TEST:com',
      '{shelfwatch}:hist:acme:B0TEST:com:20261128',
      '{shelfwatch}:hist:acme:B0TEST:com:series',
      '{shelfwatch}:hist:acme:B0TEST:com:m202611',
      '{shelfwatch}:hist:acme:B0TEST:com:compacted',
      '{shelfwatch}:hist:acme:B0TEST:com:s202611',
      '{shelfwatch}:digest:sent:acme:mail:2026-11-28',
      '{shelfwatch}:arc:answered:acme:camp',
      '{shelfwatch}:arc:invites:acme:camp',
      '{shelfwatch}:arc:invite-ids:acme:camp',
      '{shelfwatch}:reconcile-lock',
      '{shelfwatch}:digest-reconcile-lock',
    ]);
  });
});
