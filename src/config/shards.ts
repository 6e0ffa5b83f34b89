/**
 * Shards: each workspace's keys (queues, budget, snapshots with their rule state, history, pause
 * episodes, digest and ARC counters, deliveries) share the hash tag of its shard, so on a Redis
 * Cluster the workspaces spread over the masters and no command ever spans two slots.
 *
 * Shard 0 is the home shard: its prefix is the configured one (`{shelfwatch}`), so one shard — the
 * default — is exactly the layout of every deployment before shards. Shard k ≥ 1 replaces the
 * prefix's hash tag `{t}` with `{t~k}` (or `{t~k.j}`), the first of these whose slot falls in the
 * k-th free one of `count` equal slot ranges: N shards then sit on N different masters of a
 * Cluster whose masters split the slots evenly (as `redis-cli --cluster create` does).
 *
 * A workspace's shard is `pin`ned in config, or the FNV-1a hash of its id modulo `count`: a
 * function of the id, stable as long as `count` is (a change is refused until `shelfwatch shards
 * migrate` has moved the workspaces, app/shard-layout.ts).
 */
import { z } from 'zod';
import { intField } from '../config-kit/fields.ts';
import { HASH_SLOTS, hashSlot, type ShardedPrefix } from '../util/redis-keys.ts';

export const MAX_SHARDS = 256;

export const shardsSchema = z.strictObject({
  count: intField(1, MAX_SHARDS)
    .prefault(1)
    .meta({ description: 'Shards of the deployment (default 1: every key under the one prefix).' }),
  serve: z
    .array(intField(0, MAX_SHARDS - 1))
    .min(1, 'expected at least one shard to serve (leave serve out to serve every shard)')
    .optional()
    .meta({ description: "Shards whose queues this process's workers take jobs from (default: all)." }),
  pin: z
    .record(z.string().regex(/^\d{1,3}$/, 'expected a shard number such as "1"'), z.array(z.string()))
    .default({})
    .meta({
      description: 'Workspaces placed on a shard by hand: {"2": [acme]}; others by hash of their id.',
    }),
});

export type ShardsConfig = z.output<typeof shardsSchema>;

/** A problem found by `checkShards`: where, what was expected and what was found. */
export interface ShardProblem {
  path: (string | number)[];
  message: string;
  hint: string;
}

/** Cross-checks of `redis.shards` against the prefix and the workspaces. */
export function checkShards(
  shards: ShardsConfig,
  prefix: string,
  workspaceIds: readonly string[],
): ShardProblem[] {
  const problems: ShardProblem[] = [];
  if (shards.count > 1 && tagOf(prefix) === undefined) {
    problems.push({
      path: ['redis', 'prefix'],
      message: `expected a prefix with a {hash tag} when redis.shards.count is ${shards.count}, got "${prefix}"`,
      hint: 'each shard gets its own hash tag made from the prefix\'s, such as "{shelfwatch}"',
    });
  }
  for (const [at, shard] of (shards.serve ?? []).entries()) {
    if (shard >= shards.count)
      problems.push({
        path: ['redis', 'shards', 'serve', at],
        message: `expected a shard from 0 to ${shards.count - 1}, got ${shard}`,
        hint: `redis.shards.count is ${shards.count}`,
      });
  }
  const placed = new Map<string, string>();
  for (const [shard, ids] of Object.entries(shards.pin)) {
    if (Number(shard) >= shards.count)
      problems.push({
        path: ['redis', 'shards', 'pin', shard],
        message: `expected a shard from 0 to ${shards.count - 1}, got ${shard}`,
        hint: `redis.shards.count is ${shards.count}`,
      });
    for (const [at, id] of ids.entries()) {
      const earlier = placed.get(id);
      if (earlier !== undefined) {
        problems.push({
          path: ['redis', 'shards', 'pin', shard, at],
          message: `expected each workspace on one shard, got "${id}" on shards ${earlier} and ${shard}`,
          hint: 'a workspace has one shard: keep it in one list',
        });
      } else if (!workspaceIds.includes(id)) {
        problems.push({
          path: ['redis', 'shards', 'pin', shard, at],
          message: `expected the id of a configured workspace, got "${id}"`,
          hint: `known workspaces: ${workspaceIds.join(', ') || 'none'}`,
        });
      }
      placed.set(id, shard);
    }
  }
  return problems;
}

/** The text of the prefix's hash tag (between its first '{' and the next '}'), if it has one. */
function tagOf(prefix: string): { text: string; open: number; close: number } | undefined {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1 ? { text: prefix.slice(open + 1, close), open, close } : undefined;
}

/** Which of `count` equal slot ranges a hash tag's slot falls in. */
function rangeOf(tag: string, count: number): number {
  return Math.floor((hashSlot(`{${tag}}`) * count) / HASH_SLOTS);
}

/** The prefix of every shard, home first (see the module comment). */
export function shardPrefixes(prefix: string, count: number): string[] {
  const tag = tagOf(prefix);
  if (count === 1 || tag === undefined) return [prefix];
  const home = rangeOf(tag.text, count);
  const free = Array.from({ length: count }, (_, range) => range).filter((range) => range !== home);
  const prefixes = [prefix];
  for (const [i, range] of free.entries()) {
    const k = i + 1;
    let candidate = `${tag.text}~${k}`;
    for (let j = 1; rangeOf(candidate, count) !== range; j += 1) candidate = `${tag.text}~${k}.${j}`;
    prefixes.push(`${prefix.slice(0, tag.open + 1)}${candidate}${prefix.slice(tag.close)}`);
  }
  return prefixes;
}

/** FNV-1a (32 bits) of the id's UTF-8 bytes: small, stable across versions and platforms. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** The shards of a deployment: which prefix each workspace's keys go under. */
export class ShardMap implements ShardedPrefix {
  readonly home: string;
  readonly count: number;
  /** The prefix of each shard, by index; [0] is home. */
  readonly prefixes: readonly string[];
  /** Shards this process serves. */
  readonly served: readonly number[];
  private readonly pinned = new Map<string, number>();

  constructor(prefix: string, shards: ShardsConfig = { count: 1, pin: {} }) {
    this.home = prefix;
    this.count = shards.count;
    this.prefixes = shardPrefixes(prefix, shards.count);
    this.served = [...new Set(shards.serve ?? this.prefixes.map((_, i) => i))].sort((a, b) => a - b);
    for (const [shard, ids] of Object.entries(shards.pin))
      for (const id of ids) this.pinned.set(id, Number(shard));
  }

  shardOf(workspace: string): number {
    return this.pinned.get(workspace) ?? (this.count === 1 ? 0 : fnv1a(workspace) % this.count);
  }

  of(workspace: string): string {
    return this.prefixes[this.shardOf(workspace)] ?? this.home;
  }

  /** The given workspaces on shard `shard`. */
  workspacesOn(shard: number, workspaces: readonly string[]): string[] {
    return workspaces.filter((id) => this.shardOf(id) === shard);
  }
}
