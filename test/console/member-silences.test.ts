/**
 * Members silence only their own books, and nobody but an admin mutes critical alerts (issue 25
 * items 1 and 2), through the console's HTTP routes with real Redis: a member's silence of a book
 * their subscriptions name goes in (critical left out), one of another book, of no book, or of
 * critical alerts is refused with 403 and nothing stored; an admin may; a member ends only silences
 * on their own books.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileMutings } from '../../src/silence/silence.ts';
import { looseAlert } from '../helpers/alert-facts.ts';
import { ASIN, HOST, mainWorkspace, startConsoleRuntime } from './harness.ts';

const OTHER = 'B0OTHER001';
const MEMBER_TOKEN = 'member-personal-token-0123456789';
const ADMIN_TOKEN = 'admin-personal-token-01234567890';

let env: Awaited<ReturnType<typeof startConsoleRuntime>>;

beforeAll(async () => {
  env = await startConsoleRuntime('console-member-silences', {
    workspaces: [
      {
        ...mainWorkspace(),
        books: [
          { asin: ASIN, marketplaces: ['US'], keywords: ['space opera'], author: 'Ada Quill' },
          { asin: OTHER, marketplaces: ['US'], keywords: ['sea'], author: 'Bo Other' },
        ],
      },
    ],
    people: {
      accounts: [
        { id: 'ana', name: 'Ana', email: 'ana@example.com', role: 'member', token: MEMBER_TOKEN },
        { id: 'bob', name: 'Bob', email: 'bob@example.com', role: 'admin', token: ADMIN_TOKEN },
      ],
      subscriptions: [{ person: 'ana', asin: [ASIN] }],
    },
  });
});
afterAll(async () => {
  await env?.close();
});

async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
  const res = await env.app.inject({
    method: 'POST',
    url: '/login',
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${token}`,
  });
  expect(res.statusCode).toBe(303);
  const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
  const page = await env.app.inject({ url: '/silences', headers: { host: HOST, cookie } });
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '' };
}

async function post(who: { cookie: string; csrf: string }, url: string, fields: Record<string, string>) {
  return env.app.inject({
    method: 'POST',
    url,
    headers: { host: HOST, cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: who.csrf, ...fields }).toString(),
  });
}

const silence = (fields: Record<string, string>) => ({ duration: '1d', reason: 'launch week', ...fields });
const stored = async () => env.runtime.silences.all();

describe('a member in the console', () => {
  it('silences their own book, by ASIN or author, and the silence leaves critical alerts out', async () => {
    const ana = await signIn(MEMBER_TOKEN);
    const before = (await stored()).length;
    const byAsin = await post(ana, '/silences', silence({ asin: ASIN }));
    expect(byAsin.statusCode).toBe(303);
    const byAuthor = await post(ana, '/silences', silence({ author: 'Ada Quill', kind: 'bsr_worsened' }));
    expect(byAuthor.statusCode).toBe(303);
    const added = (await stored()).slice(before);
    expect(added).toHaveLength(2);
    for (const s of added) {
      expect(s.createdBy).toBe('person:ana');
      expect(s.matchers.severity).toEqual(['info', 'warning']);
    }
    // What the deliver worker's gate makes of it: the book's warning is kept back, its critical is not.
    const test = compileMutings(
      added.map((s) => ({ matchers: s.matchers, match: { id: s.id, reason: s.reason } })),
      () => 'Ada Quill',
    );
    const alert = (severity: 'warning' | 'critical') =>
      looseAlert({
        fingerprint: `fp-${severity}`,
        workspace: 'main',
        ruleId: 'r',
        kind: 'bsr_worsened',
        severity,
        status: 'firing',
        subject: { asin: ASIN, marketplace: 'US' },
        title: 't',
        facts: {},
        observedAt: 0,
      });
    expect(test(alert('warning'))).toBeDefined();
    expect(test(alert('critical'))).toBeUndefined();
  });

  it('may not silence another book, no book at all, or critical alerts (403, nothing stored)', async () => {
    const ana = await signIn(MEMBER_TOKEN);
    const before = (await stored()).length;
    const other = await post(ana, '/silences', silence({ asin: OTHER }));
    expect(other.statusCode).toBe(403);
    expect(other.body).toContain(`${OTHER} of workspace &quot;main&quot; is not one of your books`);
    const both = await post(ana, '/silences', silence({ asin: `${ASIN}, ${OTHER}` }));
    expect(both.statusCode).toBe(403);
    const byOtherAuthor = await post(ana, '/silences', silence({ author: 'Bo Other' }));
    expect(byOtherAuthor.statusCode).toBe(403);
    const noBook = await post(ana, '/silences', silence({ keyword: 'space opera' }));
    expect(noBook.statusCode).toBe(403);
    expect(noBook.body).toContain('members silence their own books only');
    const critical = await post(ana, '/silences', silence({ asin: ASIN, severity: 'critical' }));
    expect(critical.statusCode).toBe(403);
    expect(critical.body).toContain('only admins can mute critical alerts');
    expect(await stored()).toHaveLength(before);
  });

  it('ends only silences on their own books; an admin mutes critical alerts and ends any', async () => {
    const bob = await signIn(ADMIN_TOKEN);
    const before = (await stored()).length;
    expect((await post(bob, '/silences', silence({ asin: OTHER, severity: 'critical' }))).statusCode).toBe(
      303,
    );
    const admins = (await stored()).slice(before)[0];
    expect(admins?.matchers).toMatchObject({ asin: [OTHER], severity: ['critical'] });
    expect(admins?.createdBy).toBe('person:bob');

    const ana = await signIn(MEMBER_TOKEN);
    const refused = await post(ana, `/silences/${admins?.id}/expire`, {});
    expect(refused.statusCode).toBe(403);
    expect((await env.runtime.silences.get(admins?.id ?? ''))?.endsAt).toBe(admins?.endsAt);

    expect((await post(ana, '/silences', silence({ asin: ASIN }))).statusCode).toBe(303);
    const own = (await stored()).find((s) => s.createdBy === 'person:ana' && s.id !== admins?.id);
    expect((await post(ana, `/silences/${own?.id}/expire`, {})).statusCode).toBe(303);
    expect((await post(bob, `/silences/${admins?.id}/expire`, {})).statusCode).toBe(303);
  });
});
