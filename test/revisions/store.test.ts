// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { documentYaml, openRevisionStore, type RevisionStore } from '../../src/revisions/index.ts';
import { startPrivateRedis } from '../../src/tools/private-redis.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';

const KEY = randomBytes(32).toString('base64');
const HOOK = 'https://hooks.slack.com/services/T000/B000/secretpartOfTheHook';
const API_KEY = 'sk_live_verysecretapikey_123';

function doc(books: string[] = ['B0TESTBOOK'], hook: string = HOOK): Record<string, unknown> {
  return {
    workspaces: [
      {
        id: 'acme',
        baseUrl: 'http://127.0.0.1:1',
        apiKey: API_KEY,
        books: books.map((asin) => ({ asin })),
        campaigns: [{ id: 'launch' }],
      },
    ],
    channels: [{ id: 'team', type: 'slack', webhookUrl: hook }],
  };
}

const by = { by: 'tester', via: 'cli' as const, from: 'test' };

function storeFor(
  redis: Redis,
  prefix: string,
  env: Record<string, string> = { SHELFWATCH_CONFIG_KEY: KEY },
): RevisionStore {
  return openRevisionStore({ redis, prefix, env });
}

describe('revision store', () => {
  const prefix = testPrefix('revisions');
  const redis = testRedis(prefix);

  it('stores checked revisions with secrets sealed, keeps [secret], diffs, and rolls back', async () => {
    const store = storeFor(redis, `${prefix}a`);
    expect(await store.current()).toBeUndefined();
    const first = await store.propose(doc(), { ...by, basedOn: 0 });
    expect(first.outcome).toBe('stored');
    const current = await store.current();
    expect(current?.meta.rev).toBe(1);
    expect(current?.config.workspaces[0]?.apiKey.reveal()).toBe(API_KEY);
    // Nothing in Redis holds a secret in clear.
    const dump = JSON.stringify(await redis.hgetall(store.keys.documents));
    expect(dump).not.toContain(API_KEY);
    expect(dump).not.toContain('secretpartOfTheHook');
    expect(dump).toContain('sealed:v1:');

    // The export shows [secret]; applying it unchanged is a no-op.
    const yaml = documentYaml((current?.document ?? {}) as never);
    expect(yaml).toContain('[secret]');
    expect(yaml).not.toContain(API_KEY);
    const { parse } = await import('yaml');
    const again = await store.propose(parse(yaml), { ...by, basedOn: 1 });
    expect(again.outcome).toBe('unchanged');
    // The same secret given again in clear is no change either (the sealed value is kept).
    expect((await store.propose(doc(), { ...by, basedOn: 1 })).outcome).toBe('unchanged');

    const added = await store.propose(doc(['B0TESTBOOK', 'B0SECONDBK']), { ...by, basedOn: 1 });
    expect(added.outcome).toBe('stored');
    if (added.outcome !== 'stored') return;
    expect(added.meta.summary).toBe('+workspaces[acme].books[B0SECONDBK]');
    const changedHook = await store.propose(doc(['B0TESTBOOK', 'B0SECONDBK'], `${HOOK}x`), {
      ...by,
      basedOn: 2,
    });
    expect(changedHook.outcome).toBe('stored');
    const diff = await store.diff(2, 3);
    expect(diff.text).toBe('~ channels[team].webhookUrl: "[secret]" → "[secret]"');

    const back = await store.rollback(1, 'tester');
    expect(back.outcome).toBe('stored');
    if (back.outcome !== 'stored') return;
    expect(back.meta.rev).toBe(4);
    expect(back.meta.rollbackOf).toBe(1);
    expect((await store.current())?.config.workspaces[0]?.books.map((b) => b.asin)).toEqual(['B0TESTBOOK']);
    expect((await store.current())?.config.channels[0]).toMatchObject({ id: 'team' });
    const history = await store.history();
    expect(history.map((meta) => meta.rev)).toEqual([4, 3, 2, 1]);
    expect(history.every((meta) => meta.by === 'tester')).toBe(true);
  });

  it('refuses an invalid document whole, with the problems at their paths', async () => {
    const store = storeFor(redis, `${prefix}b`);
    const bad = doc();
    (bad.workspaces as Record<string, unknown>[])[0] = {
      ...((bad.workspaces as Record<string, unknown>[])[0] as object),
      books: [{ asin: 'nope' }],
      cadense: {},
    };
    const result = await store.propose(bad, { ...by, basedOn: 0 });
    expect(result.outcome).toBe('problems');
    if (result.outcome !== 'problems') return;
    const paths = result.problems.map((problem) => problem.path);
    expect(paths).toContain('workspaces[0].books[0].asin');
    expect(paths.some((path) => path.startsWith('workspaces[0]') && path.includes('cadense'))).toBe(true);
    expect(await store.currentRev()).toBe(0);
  });

  it('gives the second of two edits on the same revision a conflict naming both', async () => {
    const store = storeFor(redis, `${prefix}c`);
    await store.propose(doc(), { ...by, basedOn: 0 });
    const one = store.propose(doc(['B0TESTBOOK', 'B0AAAAAAAA']), { ...by, basedOn: 1 });
    const two = store.propose(doc(['B0TESTBOOK', 'B0BBBBBBBB']), { ...by, basedOn: 1 });
    const outcomes = (await Promise.all([one, two])).map((result) => result.outcome).sort();
    expect(outcomes).toEqual(['conflict', 'stored']);
    const late = await store.propose(doc(['B0CCCCCCCC']), { ...by, basedOn: 1 });
    expect(late).toMatchObject({ outcome: 'conflict', basedOn: 1, current: 2 });
    if (late.outcome === 'conflict') expect(late.message).toMatch(/revision 1.*revision 2/);
  });

  it('without the key accepts only ${VAR} references for secrets, and says why', async () => {
    const store = storeFor(redis, `${prefix}d`, { HOOK_URL: HOOK, API: API_KEY });
    expect(store.canSeal).toBe(false);
    const refused = await store.propose(doc(), { ...by, basedOn: 0 });
    expect(refused.outcome).toBe('problems');
    if (refused.outcome === 'problems') {
      expect(refused.problems.map((p) => p.path).sort()).toEqual([
        'channels[0].webhookUrl',
        'workspaces[0].apiKey',
      ]);
      expect(refused.problems[0]?.message).toContain('SHELFWATCH_CONFIG_KEY is not set');
      expect(JSON.stringify(refused.problems)).not.toContain(API_KEY);
    }
    const withRefs = doc(['B0TESTBOOK'], '${HOOK_URL}');
    (withRefs.workspaces as Record<string, unknown>[])[0] = {
      ...((withRefs.workspaces as Record<string, unknown>[])[0] as object),
      apiKey: '${API}',
    };
    expect((await store.propose(withRefs, { ...by, basedOn: 0 })).outcome).toBe('stored');
    expect((await store.current())?.config.workspaces[0]?.apiKey.reveal()).toBe(API_KEY);
  });

  it('keeps a file-managed configuration read-only for the console, and a console one from files', async () => {
    const store = storeFor(redis, `${prefix}e`);
    await store.propose(doc(), {
      basedOn: 0,
      by: 'ops',
      via: 'file',
      from: '/etc/shelfwatch.yaml',
      fileText: 'x',
    });
    expect((await store.get(1)).meta.managed).toEqual({ by: 'file', file: '/etc/shelfwatch.yaml' });
    const console = await store.propose(doc(['B0TESTBOOK', 'B0CONSOLEB']), {
      basedOn: 1,
      by: 'ann',
      via: 'console',
      from: '127.0.0.1',
    });
    expect(console.outcome).toBe('refused');
    if (console.outcome === 'refused') expect(console.message).toContain('/etc/shelfwatch.yaml');
    const released = await store.propose(doc(), {
      basedOn: 1,
      by: 'ops',
      via: 'cli',
      from: 'release',
      managed: { by: 'console' },
    });
    expect(released.outcome).toBe('stored');
    const fromFile = await store.propose(doc(['B0FILEBOOK']), {
      basedOn: 2,
      by: 'ops',
      via: 'cli',
      from: 'x.yaml',
      fileText: 'y',
    });
    expect(fromFile.outcome).toBe('refused');
    const takeOver = await store.propose(doc(['B0FILEBOOK']), {
      basedOn: 2,
      by: 'ops',
      via: 'cli',
      from: 'x.yaml',
      fileText: 'y',
      takeOver: true,
    });
    expect(takeOver.outcome).toBe('stored');
  });

  it('announces each switch', async () => {
    const store = storeFor(redis, `${prefix}f`);
    const seen: number[] = [];
    const stop = await store.subscribe((rev) => seen.push(rev));
    try {
      await store.propose(doc(), { ...by, basedOn: 0 });
      await waitFor('the switch announced', () => seen.includes(1), 5_000);
    } finally {
      await stop();
    }
  });
});

describe('a switch Redis refuses midway', () => {
  const servers: { stop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it('leaves the previous revision in force', async () => {
    const server = await startPrivateRedis();
    servers.push(server);
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    try {
      const store = storeFor(redis, '{swtest-oom}');
      await store.propose(doc(), { ...by, basedOn: 0 });
      // No memory left for writes: the switch script is refused by the server.
      await redis.config('SET', 'maxmemory', '1');
      await redis.config('SET', 'maxmemory-policy', 'noeviction');
      await expect(store.propose(doc(['B0TESTBOOK', 'B0OOMBOOKX']), { ...by, basedOn: 1 })).rejects.toThrow(
        /OOM/,
      );
      await redis.config('SET', 'maxmemory', '0');
      expect(await store.currentRev()).toBe(1);
      expect((await store.current())?.config.workspaces[0]?.books).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });
});
