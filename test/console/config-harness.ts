// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * The config forms over the real revision store: a simulator workspace stored as revision 1
 * (console-managed), a Runtime built from that revision, and the console with the store's editor.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Runtime } from '../../src/app/runtime.ts';
import { storeEditor } from '../../src/console/config-store-editor.ts';
import { buildConsole } from '../../src/console/server.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { openRevisionStore, type RevisionStore } from '../../src/revisions/index.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import type { SimFixture } from '../helpers/sim.ts';
import { HOST, TOKEN } from './harness.ts';

export const SEAL_KEY = randomBytes(32).toString('base64');

export function liveDocument(sim: SimFixture, plan = 'custom:100000:10000000'): Record<string, unknown> {
  const book = sim.book(0);
  return {
    workspaces: [
      {
        id: 'ws',
        baseUrl: sim.url,
        apiKey: '${SIM_KEY}',
        plan,
        sales: false,
        books: [{ asin: book.asin, marketplaces: ['US'], keywords: book.keywords.slice(0, 2) }],
      },
    ],
    channels: [{ id: 'log', type: 'log' }],
  };
}

export interface ConfigConsole {
  store: RevisionStore;
  runtime: Runtime;
  app: FastifyInstance;
  prefix: string;
  close(): Promise<void>;
}

export async function startConfigConsole(
  name: string,
  sim: SimFixture,
  document: Record<string, unknown> = liveDocument(sim),
  via: { via: 'console' | 'file'; managed?: { by: 'file'; file: string } } = { via: 'console' },
): Promise<ConfigConsole> {
  const prefix = testPrefix(name);
  const redis = testRedis(prefix);
  const env = { SIM_KEY: sim.key, SHELFWATCH_CONFIG_KEY: SEAL_KEY };
  const processRedis = { url: redisUrl(), prefix, cluster: false, shards: { count: 1, pin: {} } };
  const store = openRevisionStore({ redis, prefix, env, processRedis });
  const first = await store.propose(document, { basedOn: 0, by: 'setup', from: 'test', ...via });
  if (first.outcome !== 'stored')
    throw new Error(`the first revision was not stored: ${JSON.stringify(first)}`);
  const current = await store.current();
  if (current === undefined) throw new Error('no current revision');
  const runtime = new Runtime({ config: current.config, logger: silentLogger(), version: 'test' });
  await runtime.connect();
  const app = await buildConsole({
    runtime,
    token: TOKEN,
    host: '127.0.0.1',
    port: 8466,
    editor: storeEditor(store),
  });
  return {
    store,
    runtime,
    app,
    prefix,
    close: async () => {
      await app.close();
      await runtime.close();
    },
  };
}

/** A urlencoded form body; arrays repeat their key (checkboxes). */
export function form(fields: Record<string, string | number | readonly string[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else params.append(key, String(value));
  }
  return params.toString();
}

export function poster(app: FastifyInstance, session: { cookie: string; csrf: string }) {
  return (url: string, fields: Record<string, string | number | readonly string[]>, csrf = true) =>
    app.inject({
      method: 'POST',
      url,
      headers: { host: HOST, cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form(csrf ? { _csrf: session.csrf, ...fields } : fields),
    });
}

export function getter(app: FastifyInstance, session: { cookie: string }) {
  return (url: string) => app.inject({ url, headers: { host: HOST, cookie: session.cookie } });
}
