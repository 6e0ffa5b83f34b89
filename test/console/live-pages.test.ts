// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * The console's older pages follow the revision in force, over real HTTP: a workspace, a book, a
 * channel and a person stored as a new revision (and applied by the process's LiveConfig, as `run`
 * does) show up on the overview, the alerts filter, the silences form, the dead letters and the
 * book page, and the person signs in with their token, without restarting the console. A revision
 * this process cannot use gets a page saying why on the config pages, not a 500.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LiveConfig } from '../../src/app/live-config.ts';
import { storeEditor } from '../../src/console/config-store-editor.ts';
import { type RunningConsole, startConsole } from '../../src/console/start.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { openRevisionStore } from '../../src/revisions/index.ts';
import { useSimulator } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';
import { type ConfigConsole, form, liveDocument, SEAL_KEY, startConfigConsole } from './config-harness.ts';
import { TOKEN } from './harness.ts';

const sim = useSimulator({ seed: 44, books: 3, key: 'sk_console_live_pages_0123456789abcd' });
const PERSON_TOKEN = 'ana-personal-token-0123456789abcdef';

let c: ConfigConsole;
let live: LiveConfig;
let running: RunningConsole;
let cookie = '';

beforeAll(async () => {
  c = await startConfigConsole('console-live-pages', sim);
  live = new LiveConfig({ runtime: c.runtime, store: c.store, logger: silentLogger(), checkEveryMs: 60_000 });
  await live.start();
  running = await startConsole({
    runtime: c.runtime,
    token: TOKEN,
    host: '127.0.0.1',
    port: 0,
    editor: storeEditor(c.store),
  });
  cookie = await signIn(TOKEN);
});

afterAll(async () => {
  await running?.close();
  await live?.stop();
  await c?.close();
});

const url = (path: string) => new URL(path, running.url).toString();

async function signIn(token: string): Promise<string> {
  const res = await fetch(url('/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ token }),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

async function get(path: string, as = cookie): Promise<{ status: number; body: string }> {
  const res = await fetch(url(path), { headers: { cookie: as }, redirect: 'manual' });
  return { status: res.status, body: await res.text() };
}

async function post(path: string, fields: Record<string, string>): Promise<Response> {
  const page = await get('/silences');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return fetch(url(path), {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ _csrf: csrf, ...fields }),
    redirect: 'manual',
  });
}

it('shows a workspace, book, channel and person added live on every page, without a restart', async () => {
  const added = sim.book(2);
  const before = await get('/');
  expect(before.body).not.toContain(added.asin);
  expect((await get('/alerts')).body).not.toContain('<option>live-ws</option>');

  const document = liveDocument(sim) as {
    workspaces: Record<string, unknown>[];
    channels: Record<string, unknown>[];
  };
  document.workspaces.push({
    ...(document.workspaces[0] as Record<string, unknown>),
    id: 'live-ws',
    books: [{ asin: added.asin, marketplaces: ['US'] }],
  });
  document.channels.push({
    id: 'late-hook',
    type: 'webhook',
    url: 'http://127.0.0.1:9/late',
    secret: 'whsec_live_pages_0123456789',
  });
  const stored = await c.store.propose(
    {
      ...document,
      people: {
        accounts: [{ id: 'ana', name: 'Ana', email: 'ana@example.com', role: 'viewer', token: PERSON_TOKEN }],
      },
    },
    { basedOn: 1, by: 'test', via: 'cli', from: 'test' },
  );
  expect(stored.outcome, JSON.stringify(stored)).toBe('stored');
  await live.check();
  expect(c.runtime.revision).toBe(2);

  // The overview: the new workspace's book is a target (schedulers are `run`'s; none here).
  await waitFor(
    'the overview lists the new book',
    async () => (await get('/')).body.includes(added.asin),
    5_000,
  );
  // The alerts filter offers the new workspace and channel.
  const alerts = await get('/alerts?workspace=live-ws&channel=late-hook');
  expect(alerts.status).toBe(200);
  expect(alerts.body).toContain('<option selected>live-ws</option>');
  expect(alerts.body).toContain('<option selected>late-hook</option>');
  // The book page knows the book.
  expect((await get(`/books/live-ws/${added.asin}/US`)).status).toBe(200);
  // A silence for the new workspace is accepted (refused as unknown under the start's config).
  expect((await get('/silences')).body).toContain('live-ws');
  const silence = await post('/silences', { workspace: 'live-ws', duration: '2h', reason: 'launch week' });
  expect(silence.status).toBe(303);
  expect((await c.runtime.silences.all()).map((s) => s.matchers.workspace)).toEqual(['live-ws']);
  // Retrying the dead letters of the new channel enables it (a channel unknown here is skipped).
  await c.runtime.channelHealth.disable('late-hook', 'refused for good');
  const retried = await post('/dead-letters/retry', { channel: 'late-hook' });
  expect(retried.status).toBe(303);
  expect(await c.runtime.channelHealth.disabledReason('late-hook')).toBeNull();
  // The person of the new revision signs in with their token, with their role.
  const ana = await signIn(PERSON_TOKEN);
  expect((await get('/', ana)).status).toBe(200);
});

it('says why when the revision in force cannot be used in this process, instead of a 500', async () => {
  // Stored by a process that has a variable this one lacks (as `config apply` on another host).
  const elsewhere = openRevisionStore({
    redis: c.runtime.redis,
    prefix: c.prefix,
    env: { ONLY_ELSEWHERE: sim.key, SHELFWATCH_CONFIG_KEY: SEAL_KEY },
  });
  const document = liveDocument(sim) as { workspaces: Record<string, unknown>[] };
  (document.workspaces[0] as Record<string, unknown>).apiKey = '${ONLY_ELSEWHERE}';
  const running = c.runtime.revision;
  const basedOn = await c.store.currentRev();
  const stored = await elsewhere.propose(document, { basedOn, by: 'ops', via: 'cli', from: 'elsewhere' });
  expect(stored.outcome).toBe('stored');
  await live.check();
  expect(c.runtime.revision).toBe(running);
  for (const path of ['/config', '/config/workspaces/ws', '/config/channels']) {
    const page = await get(path);
    expect(page.status, path).toBe(503);
    expect(page.body).toContain(`Revision <strong>${basedOn + 1}</strong> is in force but cannot be used`);
    expect(page.body).toContain('<strong>workspaces[0].apiKey</strong>');
    expect(page.body).toContain('ONLY_ELSEWHERE');
    expect(page.body).toContain(`keeps running revision <strong>${running}</strong>`);
    expect(page.body).toContain(`shelfwatch config rollback ${running}`);
    expect(page.body).not.toContain(sim.key);
  }
  // A form posted meanwhile gets the same answer, and nothing is stored.
  const posted = await post('/config/workspaces/ws/campaigns', { rev: String(basedOn + 1), id: 'c-1' });
  expect(posted.status).toBe(503);
  expect(await c.store.currentRev()).toBe(basedOn + 1);
  // The older pages keep working on the revision this process runs.
  expect((await get('/')).status).toBe(200);
});
