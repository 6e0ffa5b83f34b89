import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { assessRedis, checkRedis, compareVersions, infoField } from '../../src/app/startup-checks.ts';
import {
  findRedisServerBinary,
  type PrivateRedis,
  startPrivateRedis,
} from '../../src/tools/private-redis.ts';
import { redisUrl } from '../helpers/redis.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function connect(url: string, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, ...options });
  cleanups.push(() => redis.quit());
  return redis;
}

async function privateRedis(extraArgs: string[]): Promise<PrivateRedis> {
  const server = await startPrivateRedis({ extraArgs });
  cleanups.push(() => server.stop());
  return server;
}

const hasRedisServer = findRedisServerBinary() !== undefined;

describe('checkRedis against real servers', () => {
  it('passes the shared test Redis (6.2+, noeviction) without a problem', async () => {
    const check = await checkRedis(connect(redisUrl()));
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    expect(check.found.maxmemoryPolicy).toBe('noeviction');
    expect(compareVersions(check.found.version ?? '0', '6.2.0')).toBeGreaterThanOrEqual(0);
  });

  it.skipIf(!hasRedisServer)(
    'warns about an evicting policy (a later argv flag overrides noeviction)',
    async () => {
      const server = await privateRedis(['--maxmemory-policy', 'allkeys-lru']);
      const redis = connect(server.url);
      expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'allkeys-lru']);
      const check = await checkRedis(redis);
      expect(check.ok).toBe(true);
      expect(check.found.maxmemoryPolicy).toBe('allkeys-lru');
      expect(check.problems).toHaveLength(1);
      expect(check.problems[0]?.level).toBe('warn');
      expect(check.problems[0]?.message).toMatch(
        /^maxmemory-policy is allkeys-lru; it should be noeviction, .*CONFIG SET maxmemory-policy noeviction$/,
      );
    },
  );

  it.skipIf(!hasRedisServer)('reads the policy from INFO memory when CONFIG is disabled', async () => {
    const server = await privateRedis([
      '--rename-command',
      'CONFIG',
      '',
      '--maxmemory-policy',
      'volatile-lru',
    ]);
    const redis = connect(server.url);
    await expect(redis.config('GET', 'maxmemory-policy')).rejects.toThrow(/unknown command/);
    const check = await checkRedis(redis);
    expect(check.found.maxmemoryPolicy).toBe('volatile-lru');
    expect(check.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^maxmemory-policy is volatile-lru;/),
    ]);
  });

  it.skipIf(!hasRedisServer)(
    'warns that nothing could be checked when CONFIG and INFO are denied',
    async () => {
      const server = await privateRedis([
        '--user',
        'default',
        'on',
        'nopass',
        '~*',
        '&*',
        '+@all',
        '-config',
        '-info',
      ]);
      // ioredis's own ready check uses INFO too; denied, it would only print a notice.
      const check = await checkRedis(connect(server.url, { enableReadyCheck: false }));
      expect(check.ok).toBe(true);
      expect(check.found).toEqual({});
      expect(check.problems.map((p) => [p.level, p.message.slice(0, 40)])).toEqual([
        ['warn', 'could not read the Redis version (INFO s'],
        ['warn', 'could not check maxmemory-policy (CONFIG'],
      ]);
    },
  );
});

describe('assessRedis', () => {
  it('is an error below Redis 6.2, naming what was found', () => {
    const check = assessRedis({ version: '6.0.16', maxmemoryPolicy: 'noeviction' });
    expect(check.ok).toBe(false);
    expect(check.problems).toEqual([
      {
        level: 'error',
        message:
          'BullMQ needs Redis 6.2 or newer; found 6.0.16. Upgrade the server or point redis.url / REDIS_URL at one that is 6.2+',
      },
    ]);
  });

  it('accepts 6.2.0 and later, and a Valkey reporting a Redis-compatible version', () => {
    for (const version of ['6.2.0', '6.2.14', '7.0.15', '7.2.4', '10.0.0']) {
      expect(assessRedis({ version, maxmemoryPolicy: 'noeviction' }), version).toEqual({
        ok: true,
        problems: [],
        found: { version, maxmemoryPolicy: 'noeviction' },
      });
    }
  });
});

describe('parsing helpers', () => {
  it('compares versions numerically, not as text', () => {
    expect(compareVersions('6.10.0', '6.2.0')).toBe(1);
    expect(compareVersions('6.1.9', '6.2.0')).toBe(-1);
    expect(compareVersions('6.2', '6.2.0')).toBe(0);
    expect(compareVersions('5.0.14', '6.2.0')).toBe(-1);
  });

  it('reads one field of an INFO reply with CRLF lines', () => {
    const info = '# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n';
    expect(infoField(info, 'redis_version')).toBe('7.0.15');
    expect(infoField(info, 'redis')).toBeUndefined();
  });
});
