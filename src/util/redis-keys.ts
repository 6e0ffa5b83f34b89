/**
 * The one way a workspace id (or any free-text part) goes into a Redis key.
 *
 * '%', ':', '{' and '}' become %XX (upper-case hex): a ':' would make a key ambiguous (two
 * workspaces could build the same key), a brace could open a hash tag of its own and move the key
 * to another Redis Cluster slot than its prefix's. The escape is injective.
 *
 * Configured workspace ids are lowercase letters, digits and '-' (config-kit/fields.ts idField), so
 * for them this is the identity: the keys written before this helper (some rooms used
 * encodeURIComponent, some the id as it was) are the same bytes.
 */
export function keyPart(text: string): string {
  return text.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Where a room's keys start. A plain string is one prefix for every workspace (one shard, today's
 * layout); a sharded prefix gives each workspace the prefix of its shard (config/shards.ts), and
 * keeps one home prefix for what belongs to the whole deployment (silences, channel state, locks).
 */
export type KeyPrefix = string | ShardedPrefix;

export interface ShardedPrefix {
  /** The home shard's prefix: the configured one (`{shelfwatch}`). */
  readonly home: string;
  /** The prefix of the workspace's shard. */
  of(workspace: string): string;
}

/** The prefix of the workspace's keys. */
export function prefixOf(prefix: KeyPrefix, workspace: string): string {
  return typeof prefix === 'string' ? prefix : prefix.of(workspace);
}

/** The prefix of the deployment's own keys. */
export function homePrefix(prefix: KeyPrefix): string {
  return typeof prefix === 'string' ? prefix : prefix.home;
}

/** Redis Cluster's hash slots. */
export const HASH_SLOTS = 16_384;

/**
 * The Redis Cluster slot of a key: CRC16 (XMODEM: polynomial 0x1021, initial 0) of its hash tag —
 * the text between the first '{' and the first '}' after it, when that is not empty — or of the
 * whole key, modulo 16384 (the Cluster specification's HASH_SLOT). Used to choose shard tags that
 * spread over masters; a test checks it against CLUSTER KEYSLOT.
 */
export function hashSlot(key: string): number {
  const bytes = Buffer.from(key);
  const open = bytes.indexOf(0x7b);
  let from = 0;
  let to = bytes.length;
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) {
      from = open + 1;
      to = close;
    }
  }
  let crc = 0;
  for (let i = from; i < to; i += 1) {
    crc ^= (bytes[i] ?? 0) << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % HASH_SLOTS;
}
