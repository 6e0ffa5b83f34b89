/**
 * What a Redis server spent, read from INFO: commands and their microseconds (`commandstats`),
 * the process's CPU (`used_cpu_user` + `used_cpu_sys`, networking and background work included),
 * the bytes clients sent and received (`total_net_input_bytes` / `_output_bytes`), the errors it
 * replied (`errorstats`) and its keys. `diff` gives what happened between two readings; the INFO
 * calls themselves are left out of the command counts.
 */
import type { Redis } from 'ioredis';

export interface RedisStats {
  calls: Map<string, number>;
  usec: Map<string, number>;
  cpuUsec: number;
  netIn: number;
  netOut: number;
  errors: Map<string, number>;
  keys: number;
}

/** Commands of the measurement itself, not of the work measured. */
const OWN = new Set(['info', 'dbsize', 'cluster|info', 'cluster|nodes', 'cluster|slots', 'cluster|shards']);

function field(info: string, name: string): number {
  return Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
}

export async function readStats(redis: Redis): Promise<RedisStats> {
  const info = await redis.info('everything');
  const calls = new Map<string, number>();
  const usec = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (OWN.has(m[1] as string)) continue;
    calls.set(m[1] as string, Number(m[2]));
    usec.set(m[1] as string, Number(m[3]));
  }
  const errors = new Map<string, number>();
  for (const m of info.matchAll(/^errorstat_([^:]+):count=(\d+)/gm)) errors.set(m[1] as string, Number(m[2]));
  const keys = Number(/^db0:keys=(\d+)/m.exec(info)?.[1] ?? 0);
  return {
    calls,
    usec,
    cpuUsec: Math.round((field(info, 'used_cpu_user') + field(info, 'used_cpu_sys')) * 1e6),
    netIn: field(info, 'total_net_input_bytes'),
    netOut: field(info, 'total_net_output_bytes'),
    errors,
    keys,
  };
}

function mapDiff(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, value] of after) {
    const delta = value - (before.get(name) ?? 0);
    if (delta !== 0) out.set(name, delta);
  }
  return out;
}

export function diff(after: RedisStats, before: RedisStats): RedisStats {
  return {
    calls: mapDiff(after.calls, before.calls),
    usec: mapDiff(after.usec, before.usec),
    cpuUsec: after.cpuUsec - before.cpuUsec,
    netIn: after.netIn - before.netIn,
    netOut: after.netOut - before.netOut,
    errors: mapDiff(after.errors, before.errors),
    keys: after.keys,
  };
}

export const total = (values: Map<string, number>): number => [...values.values()].reduce((a, b) => a + b, 0);

/** The commands with the most calls, as `name×n`. */
export function topCommands(calls: Map<string, number>, per: number, shown = 6): string {
  return [...calls]
    .sort((a, b) => b[1] - a[1])
    .slice(0, shown)
    .map(([name, n]) => `${name.toUpperCase()}×${(n / per).toFixed(1)}`)
    .join(' ');
}
