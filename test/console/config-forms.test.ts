/**
 * The console's config forms over the real revision store, a real Redis and the simulator: each
 * save is a revision based on the form's, problems come back next to their fields, a stale form is
 * a conflict, hostile values are refused or escaped, a file-managed configuration is read-only,
 * and "poll now" queues one poll or is refused by the budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollLimits } from '../../src/budget/limits.ts';
import { bookTargetId } from '../../src/poll/targets.ts';
import { startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { useSimulator } from '../helpers/sim.ts';
import { type ConfigConsole, getter, liveDocument, poster, startConfigConsole } from './config-harness.ts';
import { login } from './harness.ts';

const sim = useSimulator({ seed: 41, books: 3, key: 'sk_console_forms_0123456789abcdef' });

describe('config forms', () => {
  let c: ConfigConsole;
  let post: ReturnType<typeof poster>;
  let get: ReturnType<typeof getter>;
  beforeAll(async () => {
    c = await startConfigConsole('config-forms', sim);
    const session = await login(c.app);
    post = poster(c.app, session);
    get = getter(c.app, session);
  });
  afterAll(async () => c?.close());

  it('looks a book up with one request, adds it as a new revision by the signed-in user', async () => {
    const page = await get('/config/workspaces/ws');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('costs <strong>one API request</strong>');
    const book = sim.book(1);
    const before = (await c.runtime.budget.usage('ws')).monthUsed;
    const lookup = await post('/config/workspaces/ws/books/lookup', {
      rev: 1,
      asin: book.asin,
      marketplaces: ['US'],
    });
    expect(lookup.statusCode).toBe(200);
    expect(lookup.body).toContain('Found with one request');
    expect((await c.runtime.budget.usage('ws')).monthUsed - before).toBe(1);
    const saved = await post('/config/workspaces/ws/books', {
      rev: 1,
      asin: book.asin,
      marketplaces: ['US', 'UK'],
      author: 'Ann Author',
      mode: 'top',
      top: 25,
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/config/workspaces/ws?saved=2');
    const [latest] = await c.store.history();
    expect(latest).toMatchObject({ rev: 2, by: 'token', via: 'console' });
    const current = await c.store.current();
    expect(current?.config.workspaces[0]?.books.map((b) => b.asin)).toContain(book.asin);
    expect(current?.config.workspaces[0]?.books.find((b) => b.asin === book.asin)?.keywords).toEqual({
      top: 25,
    });
  });

  it('puts each schema problem next to its field and stores nothing', async () => {
    const rev = await c.store.currentRev();
    const asin = sim.book(0).asin;
    const res = await post(`/config/workspaces/ws/books/${asin}/keywords`, { rev, mode: 'top', top: 5000 });
    expect(res.statusCode).toBe(400);
    const error =
      /<span id="f-top-error" class="field-error">(.*?)<\/span><\/div>/s.exec(res.body)?.[1] ?? '';
    expect(error).toContain('workspaces[0].books[0].keywords.top');
    expect(error).toContain('1000');
    expect(res.body).toMatch(/id="f-top"[^>]*aria-invalid="true"/);
    expect(await c.store.currentRev()).toBe(rev);
  });

  it('answers a form drawn from an older revision with a conflict naming both', async () => {
    const rev = await c.store.currentRev();
    const res = await post('/config/workspaces/ws/campaigns', { rev: rev - 1, id: 'late-camp' });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain(`drawn from revision ${rev - 1}, but revision ${rev} has been saved since`);
    // The form comes back with the typed value, drawn from the newer revision.
    expect(res.body).toContain('value="late-camp"');
    expect(res.body).toContain(`name="rev" value="${rev}"`);
    expect(await c.store.currentRev()).toBe(rev);
  });

  it('adds a campaign with its name, which the workspace page shows before the id', async () => {
    const rev = await c.store.currentRev();
    const res = await post('/config/workspaces/ws/campaigns', { rev, id: 'spring-arc', name: 'Spring ARC' });
    expect(res.statusCode).toBe(303);
    const page = await get('/config/workspaces/ws');
    expect(page.body).toContain('Spring ARC <span class="mute">spring-arc</span>');
  });

  it('refuses a post without the CSRF token', async () => {
    const rev = await c.store.currentRev();
    const res = await post('/config/workspaces/ws/campaigns', { rev, id: 'x' }, false);
    expect(res.statusCode).toBe(403);
    expect(await c.store.currentRev()).toBe(rev);
  });

  it('escapes markup, refuses bidi controls and a 10 MB field', async () => {
    const rev = await c.store.currentRev();
    const asin = sim.book(0).asin;
    const hostile = '<script>alert(1)</script> "><img src=x>';
    const ok = await post(`/config/workspaces/ws/books/${asin}/keywords`, {
      rev,
      mode: 'list',
      list: `space opera\n${hostile}`,
    });
    expect(ok.statusCode).toBe(303);
    const page = await get(`/config/workspaces/ws/books/${asin}/keywords`);
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).not.toContain('<img src=x>');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');

    const now = await c.store.currentRev();
    const bidi = await post('/config/workspaces/ws/campaigns', { rev: now, id: 'evil\u202Egnp.exe' });
    expect(bidi.statusCode).toBe(400);
    expect(bidi.body).toContain('without control or bidirectional formatting characters');
    expect(bidi.body).not.toContain('\u202E');
    const huge = await post('/config/workspaces/ws/campaigns', {
      rev: now,
      id: 'A'.repeat(10 * 1024 * 1024),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.body).toContain('nothing was saved');
    expect(await c.store.currentRev()).toBe(now);
  });

  it('shows the plan for typed cadences before saving, then saves them', async () => {
    const rev = await c.store.currentRev();
    const preview = await post('/config/workspaces/ws/cadence', {
      rev,
      book: '2h',
      keywords: '',
      reviews: '',
      sales: '',
      action: 'preview',
    });
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain('The plan with the cadences you typed (not saved)');
    expect(preview.body).toMatch(/Requests a month: <strong>[\d,]+<\/strong>/);
    expect(preview.body).toContain('Per-minute peak');
    expect(preview.body).toContain('Fits the budget');
    expect(await c.store.currentRev()).toBe(rev);
    const bad = await post('/config/workspaces/ws/cadence', { rev, book: '10ms', action: 'preview' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="f-book-error"');
    const save = await post('/config/workspaces/ws/cadence', { rev, book: '2h', action: 'save' });
    expect(save.statusCode).toBe(303);
    expect((await c.store.current())?.config.workspaces[0]?.cadence.book).toBe(7_200_000);
  });

  it('polls a target now, and refuses when the minute or the month has no room', async () => {
    const target = bookTargetId(sim.book(0).asin, 'US');
    const ok = await post('/config/workspaces/ws/poll', { rev: 1, target });
    expect(ok.statusCode).toBe(202);
    expect(ok.body).toContain('costs 1 request');
    const jobId = /job (now\.[^)]+)\)/.exec(ok.body)?.[1] ?? '';
    const job = await c.runtime.pollQueue.getJob(jobId);
    expect(job?.data).toEqual({ workspace: 'ws', targetId: target });
    const ws = c.runtime.config.workspaces[0];
    if (ws === undefined) throw new Error('no workspace');
    const queued = await c.runtime.pollQueue.count();
    // The API's own count of this minute fills the window: no room for one more poll.
    await c.runtime.budget.syncMinuteUsed('ws', ws.plan.perMinute);
    const minute = await post('/config/workspaces/ws/poll', { rev: 1, target });
    expect(minute.statusCode).toBe(429);
    expect(minute.body).toContain('minute&#39;s budget has no room: 0 request(s) left');
    expect(await c.runtime.pollQueue.count()).toBe(queued);
    await c.runtime.budget.syncMonthUsed('ws', pollLimits(ws).monthCeiling ?? ws.plan.perMonth);
    const month = await post('/config/workspaces/ws/poll', { rev: 1, target });
    expect(month.statusCode).toBe(429);
    expect(month.body).toContain('budget has no room: 0 request(s) left');
    expect(await c.runtime.pollQueue.count()).toBe(queued);
  });

  it('adds a channel with a sealed URL, sends a test to it, never shows the URL', async () => {
    const receiver = await startHttpReceiver('/hook/secret-part-of-the-url');
    try {
      const rev = await c.store.currentRev();
      const added = await post('/config/channels', {
        rev,
        id: 'hooked',
        type: 'webhook',
        url: receiver.url,
        signing: 'whsec-signing-secret-0123456789',
      });
      expect(
        added.statusCode,
        /role="alert">.*?<\/div>/s.exec(added.body)?.[0] ??
          /field-error">.*?<\/span><\/div>/s.exec(added.body)?.[0],
      ).toBe(303);
      const stored = JSON.stringify(await c.runtime.redis.hgetall(c.store.keys.documents));
      expect(stored).not.toContain('secret-part-of-the-url');
      const page = await get('/config/channels');
      expect(page.body).toContain('hooked');
      expect(page.body).not.toContain('secret-part-of-the-url');
      const test = await post('/config/channels/hooked/test', { rev: rev + 1 });
      expect(test.statusCode).toBe(200);
      expect(test.body).toContain('the channel accepted it');
      const [message] = await receiver.waitForMessages(1, 5_000);
      expect(message?.raw).toContain('Test alert from shelfwatch');
      expect(test.body).not.toContain('secret-part-of-the-url');
    } finally {
      await receiver.close();
    }
  });

  it('adds email, Telegram and ntfy channels through their own forms, secrets sealed and never drawn', async () => {
    const receiver = await startHttpReceiver('/unused');
    const secrets = {
      smtp: 'smtps://alerts:smtp-secret-password-0123@smtp.example.com:465',
      bot: '123456:telegram-secret-bot-token-0123456789',
      topic: 'ntfy-secret-topic-0123',
      token: 'tk_ntfy-secret-access-token',
    };
    try {
      const channelsPage = await get('/config/channels');
      for (const type of ['email', 'telegram', 'ntfy'])
        expect(channelsPage.body).toContain(`<input type="hidden" name="type" value="${type}">`);
      // A refused form: the problem next to its field, the typed secret not sent back.
      let rev = await c.store.currentRev();
      const refused = await post('/config/channels', {
        rev,
        type: 'telegram',
        id: 'tg',
        botToken: 'not-a-bot-token-but-secret-text',
        chatId: '-1001234567890',
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toMatch(
        /id="f-telegram-botToken-error" class="field-error">.*?expected a bot token/s,
      );
      expect(refused.body).not.toContain('not-a-bot-token-but-secret-text');
      expect(refused.body).toContain('value="-1001234567890"');
      expect(await c.store.currentRev()).toBe(rev);
      const forms: Record<string, string>[] = [
        {
          type: 'email',
          id: 'mail',
          smtpUrl: secrets.smtp,
          from: 'a@example.com',
          to: 'b@example.com, c@example.com',
        },
        { type: 'telegram', id: 'tg', botToken: secrets.bot, chatId: '@shelfwatchers' },
        {
          type: 'ntfy',
          id: 'push',
          serverUrl: new URL(receiver.url).origin,
          topic: secrets.topic,
          token: secrets.token,
        },
      ];
      for (const fields of forms) {
        const added = await post('/config/channels', { rev, ...fields });
        expect(added.statusCode, /field-error">.*?<\/span>/s.exec(added.body)?.[0]).toBe(303);
        rev += 1;
      }
      const config = (await c.store.current())?.config;
      expect(config?.channels.find((ch) => ch.id === 'mail')).toMatchObject({
        type: 'email',
        from: 'a@example.com',
        to: ['b@example.com', 'c@example.com'],
      });
      expect(config?.channels.find((ch) => ch.id === 'tg')).toMatchObject({
        type: 'telegram',
        chatId: '@shelfwatchers',
      });
      const stored = JSON.stringify(await c.runtime.redis.hgetall(c.store.keys.documents));
      const page = await get('/config/channels');
      // Several forms on one page (an add form per kind, quiet hours per channel): no id twice.
      const ids = [...page.body.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
      expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
      for (const secret of Object.values(secrets)) {
        expect(stored).not.toContain(secret);
        expect(page.body).not.toContain(secret);
      }
      const test = await post('/config/channels/push/test', { rev });
      expect(test.body).toContain('the channel accepted it');
      const [message] = await receiver.waitForMessages(1, 5_000);
      expect(`${message?.path} ${message?.raw}`).toContain(secrets.topic);
      expect(message?.headers.authorization).toBe(`Bearer ${secrets.token}`);
    } finally {
      await receiver.close();
    }
  });

  it('shows and takes rule durations as the file spells them ("30m", "7d"), not milliseconds', async () => {
    const page = await get('/config/workspaces/ws/rules?kind=source_health');
    expect(page.body).toMatch(/name="p\.pausedFor" type="text" value="30m"/);
    expect(page.body).toContain('default: 30m; a duration such as 15m, 2h or 1h30m');
    expect((await get('/config/workspaces/ws/rules?kind=keyword_rank_drop')).body).toContain('value="7d"');
    const rev = await c.store.currentRev();
    const wrong = await post('/config/workspaces/ws/rules', {
      rev,
      kind: 'source_health',
      id: 'health-slow',
      'p.pausedFor': '15 minutes',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toMatch(
      /id="f-p_pausedFor-error" class="field-error">.*?expected a duration such as/s,
    );
    const saved = await post('/config/workspaces/ws/rules', {
      rev,
      kind: 'source_health',
      id: 'health-slow',
      'p.pausedFor': '2h15m',
      'p.failures': '5',
    });
    expect(saved.statusCode).toBe(303);
    const rules = (await c.store.current())?.config.workspaces[0]?.rules ?? [];
    expect(rules.find((r) => r.id === 'health-slow')).toMatchObject({ pausedFor: 8_100_000, failures: 5 });
    expect((await get('/config/workspaces/ws/rules')).body).toContain('pausedFor 2h15m');
    // Taken out again: the next test counts this workspace's rules from none.
    expect(
      (await post('/config/workspaces/ws/rules/remove', { rev: rev + 1, id: 'health-slow' })).statusCode,
    ).toBe(303);
  });

  it('saves a rule for one book, a route, a mute window and the digest', async () => {
    let rev = await c.store.currentRev();
    const asin = sim.book(0).asin;
    const rules = await get('/config/workspaces/ws/rules?kind=keyword_rank_drop');
    expect(rules.body).toContain('default: 5');
    const rule = await post('/config/workspaces/ws/rules', {
      rev,
      kind: 'keyword_rank_drop',
      id: 'kw-tight',
      scope: asin,
      'p.positionsLost': 2,
    });
    expect(rule.statusCode).toBe(303);
    rev += 1;
    expect((await c.store.current())?.config.workspaces[0]?.rules).toEqual([
      expect.objectContaining({ id: 'kw-tight', kind: 'keyword_rank_drop', books: [asin], positionsLost: 2 }),
    ]);
    const route = await post('/config/routes', { rev, severity: ['critical'], channels: ['log'] });
    expect(route.statusCode).toBe(303);
    rev += 1;
    const mute = await post('/config/mute-windows', {
      rev,
      name: 'nights',
      start: '22:00',
      end: '07:00',
      timeZone: 'UTC',
      severity: ['info'],
    });
    expect(mute.statusCode).toBe(303);
    rev += 1;
    // The digest goes to email, outbox or chat channels (a log channel is refused): a Slack one.
    const slack = await post('/config/channels', {
      rev,
      id: 'digest-slack',
      type: 'slack',
      url: 'https://hooks.slack.com/services/T0/B0/digest-token',
    });
    expect(slack.statusCode).toBe(303);
    rev += 1;
    const refused = await post('/config/digest/recipients', { rev, workspace: 'ws', channel: 'log' });
    expect(refused.statusCode).not.toBe(303);
    expect(refused.body).toContain('expected a channel of type email, outbox, slack, discord, teams');
    const digest = await post('/config/digest/recipients', { rev, workspace: 'ws', channel: 'digest-slack' });
    expect(digest.statusCode).toBe(303);
    rev += 1;
    const time = await post('/config/digest', { rev, enabled: 'true', time: '07:30' });
    expect(time.statusCode).toBe(303);
    const config = (await c.store.current())?.config;
    expect(config?.routes).toEqual([
      expect.objectContaining({ channels: ['log'], match: { severity: ['critical'] } }),
    ]);
    expect(config?.muteWindows[0]).toMatchObject({ name: 'nights', start: '22:00', end: '07:00' });
    expect(config?.digest).toMatchObject({
      enabled: true,
      time: '07:30',
      recipients: [expect.objectContaining({ channel: 'digest-slack' })],
    });
  });
});

describe('a file-managed configuration', () => {
  let c: ConfigConsole;
  beforeAll(async () => {
    c = await startConfigConsole('config-file', sim, liveDocument(sim), {
      via: 'file',
      managed: { by: 'file', file: '/etc/shelfwatch/shelfwatch.yaml' },
    });
  });
  afterAll(async () => c?.close());

  it('is shown read-only with its file named, and refuses a post', async () => {
    const session = await login(c.app);
    const page = await getter(c.app, session)('/config/workspaces/ws');
    expect(page.body).toContain(
      'managed by the file <code class="wrap">/etc/shelfwatch/shelfwatch.yaml</code>',
    );
    expect(page.body).not.toContain('action="/config/workspaces/ws/books/lookup"');
    const res = await poster(c.app, session)('/config/workspaces/ws/campaigns', { rev: 1, id: 'camp' });
    expect(res.statusCode).toBe(409);
    expect(await c.store.currentRev()).toBe(1);
  });
});
