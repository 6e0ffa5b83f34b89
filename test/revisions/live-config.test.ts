// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * A process that cannot use the newest revision keeps the last good one, says why and fails its
 * readiness; the next usable revision puts it right.
 */
import { expect, it } from 'vitest';
import { LiveConfig } from '../../src/app/live-config.ts';
import { Runtime } from '../../src/app/runtime.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { openRevisionStore } from '../../src/revisions/index.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('live-config');
const redis = testRedis(prefix);

function doc(asins: string[], apiKey = '${API_KEY}') {
  return {
    workspaces: [
      { id: 'acme', baseUrl: 'http://127.0.0.1:1', apiKey, books: asins.map((asin) => ({ asin })) },
    ],
  };
}

it('keeps the last good revision when the newest cannot be applied here, and fails readiness', async () => {
  const writer = openRevisionStore({ redis, prefix, env: { API_KEY: 'k1', OTHER_KEY: 'k2' } });
  expect(
    (await writer.propose(doc(['B0AAAAAAAA']), { basedOn: 0, by: 't', via: 'cli', from: 't' })).outcome,
  ).toBe('stored');
  const start = parseConfig({ ...doc(['B0AAAAAAAA'], 'k1'), redis: { url: redisUrl(), prefix } });
  if (!start.ok) throw new Error('bad start config');
  const runtime = new Runtime({
    config: start.config,
    logger: silentLogger(),
    version: 'test',
    notifiers: new Map(),
  });
  try {
    // This process knows API_KEY only.
    const store = openRevisionStore({
      redis: runtime.redis,
      prefix,
      env: { API_KEY: 'k1' },
      processRedis: start.config.redis,
    });
    const live = new LiveConfig({ runtime, store, logger: silentLogger() });
    await live.check();
    expect(runtime.revision).toBe(1);
    expect(live.readiness()).toBe('config revision 1');

    // Revision 2 needs OTHER_KEY, which this process lacks: it stays on 1 and is not ready.
    await writer.propose(doc(['B0AAAAAAAA', 'B0BBBBBBBB'], '${OTHER_KEY}'), {
      basedOn: 1,
      by: 't',
      via: 'cli',
      from: 't',
    });
    await live.check();
    expect(runtime.revision).toBe(1);
    expect(runtime.config.workspaces[0]?.books).toHaveLength(1);
    expect(() => live.readiness()).toThrow(/revision 2 not applied \(running 1\).*OTHER_KEY/);
    expect((await store.processes()).get(live.process)).toMatchObject({ rev: 1, failing: { rev: 2 } });

    // Revision 3 is usable here: applied, ready again, the new book a target.
    await writer.propose(doc(['B0AAAAAAAA', 'B0BBBBBBBB']), { basedOn: 2, by: 't', via: 'cli', from: 't' });
    await live.check();
    expect(runtime.revision).toBe(3);
    expect(live.readiness()).toBe('config revision 3');
    expect(runtime.registry.all('acme').some((target) => target.ref.id.includes('B0BBBBBBBB'))).toBe(true);
  } finally {
    await runtime.close();
  }
});
