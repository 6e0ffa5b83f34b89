import { describe, expect, it } from 'vitest';
import { readInvites } from '../../src/arc/invite-counts.ts';
import { arcInvitesKey } from '../../src/arc/keys.ts';
import { InviteLedger } from '../../src/arc/ledger.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('arc-invites');
const redis = testRedis(prefix);

const answer = (campaignId: string, items: [id: string, status: 'invited' | 'already_invited'][]) => ({
  campaign_id: campaignId,
  data: items.map(([id, status]) => ({ invite_id: id, email: `${id}@example.com`, status })),
});
const batch = (key: string) => ({ number: 1, idempotencyKey: key, readers: [] });

describe('ARC invites the digest rates reviews against', () => {
  it("counts the API's invites of readers shelfwatch did not invite (already_invited), once each", async () => {
    const ledger = new InviteLedger(redis, prefix, 'acme', 'camp-a');
    // Two readers the publisher invited elsewhere, one shelfwatch invites now.
    await ledger.record(
      batch('k1'),
      answer('camp-a', [
        ['i1', 'already_invited'],
        ['i2', 'already_invited'],
        ['i3', 'invited'],
      ]),
    );
    expect(await readInvites(redis, prefix, 'acme', 'camp-a')).toBe(3);
    // Another run with one of them again and a new one: the set counts each invite once.
    await ledger.record(
      batch('k2'),
      answer('camp-a', [
        ['i1', 'already_invited'],
        ['i4', 'invited'],
      ]),
    );
    expect(await readInvites(redis, prefix, 'acme', 'camp-a')).toBe(4);
  });

  it('keeps a counter written before invite ids were kept, and says null when nothing was recorded', async () => {
    await redis.set(arcInvitesKey(prefix, 'acme', 'camp-old'), '12');
    expect(await readInvites(redis, prefix, 'acme', 'camp-old')).toBe(12);
    expect(await readInvites(redis, prefix, 'acme', 'camp-none')).toBeNull();
  });
});
