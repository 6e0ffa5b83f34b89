import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { formatProblems, loadConfig } from '../../src/config/load.ts';
import { problemAt, tempDir, validRaw, writeFile } from './helpers.ts';

const EXAMPLE = resolve(dirname(fileURLToPath(import.meta.url)), '../../examples/shelfwatch.yaml');

describe('loadConfig from a file', () => {
  const dir = tempDir();

  it("REDIS_URL wins over the file's redis.url (docs/configuration.md: which wins)", () => {
    const env = { PUBLISHING_API_KEY: 'sk-example', SHELFWATCH_PORT: '9500' };
    const fromFile = loadConfig({ path: EXAMPLE, env });
    const fromEnv = loadConfig({ path: EXAMPLE, env: { ...env, REDIS_URL: 'redis://10.0.0.9:6390/2' } });
    if (!fromFile.ok || !fromEnv.ok) throw new Error('example did not load');
    expect(fromFile.config.redis.url).toBe('redis://127.0.0.1:6379');
    expect(fromEnv.config.redis.url).toBe('redis://10.0.0.9:6390/2');
    expect(fromEnv.config.redis.prefix).toBe(fromFile.config.redis.prefix);
  });

  it('loads the full example with its typed values', () => {
    const result = loadConfig({
      path: EXAMPLE,
      env: { PUBLISHING_API_KEY: 'sk-example', SHELFWATCH_PORT: '9500' },
    });
    if (!result.ok) throw new Error(formatProblems(result.problems));
    const { config } = result;
    expect(result.source).toEqual({ kind: 'file', path: EXAMPLE });
    expect(config.redis).toEqual({
      cluster: false,
      url: 'redis://127.0.0.1:6379',
      prefix: '{shelfwatch}',
      shards: { count: 1, pin: {} },
    });
    const [acme, small] = config.workspaces;
    expect(acme?.apiKey.reveal()).toBe('sk-example');
    expect(acme?.plan).toEqual({ name: 'studio', perMinute: 60, perMonth: 100_000 });
    expect(acme?.timeZone).toBe('Europe/Berlin');
    expect(acme?.books[0]).toEqual({
      asin: 'B04IY23U3F',
      marketplaces: ['US', 'UK'],
      keywords: { list: ['the secret bakery', 'christmas detective novel', 'feel good whodunit collection'] },
      author: 'Jane Doe',
    });
    expect(acme?.books[1]).toEqual({ asin: 'B004XVQNWI', marketplaces: ['US'], keywords: { top: 100 } });
    expect(acme?.books[2]?.keywords).toEqual({ top: 25 });
    expect(acme?.cadence).toEqual({ reviews: 30 * 60_000, sales: 6 * 3_600_000 });
    expect(acme?.sales).toEqual({ marketplaces: ['US', 'UK'] });
    expect(acme?.rules.map((rule) => rule.id)).toEqual(['acme-low-stars']);
    expect(small?.plan).toEqual({ name: 'custom', perMinute: 300, perMonth: 1_000_000 });
    expect(small?.apiKey.reveal()).toBe('sk_demo_publisher');
    expect(small?.sales).toBe(false);
    expect(small?.timeZone).toBe('UTC');
    expect(config.rules.find((rule) => rule.id === 'bsr-worse')).toMatchObject({ repeatEvery: 86_400_000 });
    expect(config.channels.map((channel) => channel.id)).toEqual([
      'log',
      'team-slack',
      'team-mail',
      'jane-mail',
      'outbox',
    ]);
    const outbox = config.channels.find((channel) => channel.type === 'outbox');
    expect(outbox?.type === 'outbox' && outbox.dir).toBe(join(dirname(EXAMPLE), 'outbox'));
    expect(config.routes[1]).toEqual({
      match: { workspace: 'acme', kind: ['review_new', 'review_removed'] },
      channels: ['team-slack'],
      digestOnly: false,
      hideLowStarText: true,
    });
    expect(config.digest.recipients).toEqual([
      { workspace: 'acme', channel: 'team-mail', timeZone: 'Europe/Berlin' },
      { workspace: 'small-press', channel: 'outbox', timeZone: 'America/New_York' },
    ]);
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 9500,
      allowedHosts: [],
      bookMetrics: { enabled: false, maxSeries: 2_000 },
    });
    expect(config.workers).toEqual({ pollConcurrency: 4, deliverConcurrency: 4 });
  });

  it('fills defaults for a minimal config, and the same YAML round-trips to the same values', () => {
    const file = writeFile(dir, 'minimal.yaml', stringify(validRaw()));
    const result = loadConfig({ path: file, env: {} });
    if (!result.ok) throw new Error(formatProblems(result.problems));
    const { config } = result;
    const [ws] = config.workspaces;
    expect(ws?.plan.name).toBe('studio');
    expect(ws?.reserve).toBe(0.1);
    expect(ws?.timeZone).toBe('UTC');
    expect(ws?.books[0]?.keywords).toEqual({ top: 100 });
    expect(ws?.sales).toEqual({ marketplaces: ['US', 'UK'] });
    expect(ws?.cadence).toEqual({});
    expect(config.rules.length).toBeGreaterThan(5);
    expect(config.routes).toEqual([
      { match: {}, channels: ['log', 'team-slack', 'team-mail'], digestOnly: false, hideLowStarText: false },
    ]);
    expect(config.digest).toEqual({ enabled: false, time: '08:00', recipients: [] });
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 9464,
      allowedHosts: [],
      bookMetrics: { enabled: false, maxSeries: 2_000 },
    });
  });

  it('never puts a secret into JSON or inspect output of the loaded config', () => {
    const file = writeFile(dir, 'secrets.yaml', stringify(validRaw()));
    const result = loadConfig({ path: file, env: {} });
    if (!result.ok) throw new Error(formatProblems(result.problems));
    for (const text of [JSON.stringify(result.config), inspect(result.config, { depth: 20 })]) {
      expect(text).not.toContain('sk-test-123');
      expect(text).not.toContain('secret-token');
      expect(text).not.toContain('smtp-password');
      expect(text).toContain('[redacted]');
    }
  });

  it('takes the path from SHELFWATCH_CONFIG, then ./shelfwatch.yaml in cwd', () => {
    const file = writeFile(dir, 'shelfwatch.yaml', stringify(validRaw()));
    const viaEnv = loadConfig({ env: { SHELFWATCH_CONFIG: file }, cwd: '/' });
    expect(viaEnv.ok && viaEnv.source).toEqual({ kind: 'file', path: file });
    const discovered = loadConfig({ env: {}, cwd: dir });
    expect(discovered.ok && discovered.source).toEqual({ kind: 'file', path: file });
  });

  it('reports a missing file', () => {
    const result = loadConfig({ path: 'does-not-exist.yaml', env: {}, cwd: dir });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      {
        path: 'does-not-exist.yaml',
        message: 'expected a readable config file, got no such file',
        hint: 'check the path given with --config or SHELFWATCH_CONFIG',
      },
    ]);
  });

  it('reports a YAML syntax error with its line and column', () => {
    const file = writeFile(
      dir,
      'broken.yaml',
      'redis:\n  url: redis://x\nworkspaces:\n  - id: acme\n   baseUrl: [oops\n',
    );
    const result = loadConfig({ path: file, env: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const [problem] = result.problems;
    expect(problem?.path).toMatch(/broken\.yaml:5:\d+$/);
    expect(problem?.message).toMatch(/^invalid YAML at line 5, column \d+: /);
  });

  it('reports a duplicate key as a YAML error', () => {
    const file = writeFile(dir, 'dup.yaml', 'server:\n  port: 1\nserver:\n  port: 2\n');
    const result = loadConfig({ path: file, env: {} });
    expect(!result.ok && result.problems[0]?.message).toMatch(/line 3.*unique/i);
  });

  it('reports an empty file and a file that is not a mapping', () => {
    const empty = loadConfig({ path: writeFile(dir, 'empty.yaml', '# nothing\n'), env: {} });
    expect(!empty.ok && empty.problems[0]?.message).toBe(
      'expected settings (at least "workspaces"), got an empty file',
    );
    const list = loadConfig({ path: writeFile(dir, 'list.yaml', '- a\n- b\n'), env: {} });
    expect(!list.ok && list.problems[0]).toMatchObject({
      path: '(top level)',
      message: expect.stringContaining('got a list'),
    });
  });
});

describe('loadConfig from the environment only', () => {
  const dir = tempDir();

  it('builds one workspace from the variables', () => {
    const result = loadConfig({
      cwd: dir,
      env: {
        PUBLISHING_API_BASE_URL: 'https://api.example.com/',
        PUBLISHING_API_KEY: 'sk-env',
        PUBLISHING_API_PLAN: 'publisher',
        REDIS_URL: 'redis://redis.internal:6380',
        SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x',
        SMTP_URL: 'smtps://u:p@smtp.example.com:465',
        ALERT_EMAIL_FROM: 'alerts@example.com',
        ALERT_EMAIL_TO: 'a@example.com, b@example.com',
        SHELFWATCH_ASINS: 'B0CJ4XQ2ZK, B0CJ4XQ2ZK:UK ,B0DEF12345:DE',
        SHELFWATCH_CAMPAIGNS: 'camp-1,camp-2',
      },
    });
    if (!result.ok) throw new Error(formatProblems(result.problems));
    const { config } = result;
    expect(result.source).toEqual({ kind: 'env' });
    expect(config.redis.url).toBe('redis://redis.internal:6380');
    const [ws] = config.workspaces;
    expect(config.workspaces).toHaveLength(1);
    expect(ws?.id).toBe('default');
    expect(ws?.baseUrl).toBe('https://api.example.com');
    expect(ws?.apiKey.reveal()).toBe('sk-env');
    expect(ws?.plan).toEqual({ name: 'publisher', perMinute: 300, perMonth: 1_000_000 });
    expect(ws?.books.map((book) => [book.asin, book.marketplaces])).toEqual([
      ['B0CJ4XQ2ZK', ['US', 'UK']],
      ['B0DEF12345', ['DE']],
    ]);
    expect(ws?.campaigns).toEqual([{ id: 'camp-1' }, { id: 'camp-2' }]);
    expect(config.channels.map((channel) => channel.type)).toEqual(['slack', 'email']);
    const email = config.channels[1];
    expect(email?.type === 'email' && email.to).toEqual(['a@example.com', 'b@example.com']);
  });

  it('defaults to the studio plan, the log channel and local Redis', () => {
    const result = loadConfig({
      cwd: dir,
      env: {
        PUBLISHING_API_BASE_URL: 'https://api.example.com',
        PUBLISHING_API_KEY: 'k',
        SHELFWATCH_ASINS: 'B0CJ4XQ2ZK',
      },
    });
    if (!result.ok) throw new Error(formatProblems(result.problems));
    expect(result.config.workspaces[0]?.plan.name).toBe('studio');
    expect(result.config.channels).toEqual([
      { id: 'log', type: 'log', groupWait: 30_000, groupInterval: 300_000 },
    ]);
    expect(result.config.redis.url).toBe('redis://127.0.0.1:6379');
  });

  it('names the variables in problems, with the schema messages', () => {
    const result = loadConfig({
      cwd: dir,
      env: {
        PUBLISHING_API_BASE_URL: 'https://api.example.com',
        PUBLISHING_API_PLAN: 'gold',
        SHELFWATCH_ASINS: 'B0CJ4XQ2ZK:XX',
        ALERT_EMAIL_TO: 'not-an-address',
      },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(problemAt(result.problems, 'PUBLISHING_API_KEY').message).toBe('expected text, got nothing');
    expect(problemAt(result.problems, 'PUBLISHING_API_PLAN').message).toContain('got "gold"');
    expect(problemAt(result.problems, 'SHELFWATCH_ASINS').message).toContain('got "XX"');
    expect(problemAt(result.problems, 'SMTP_URL').message).toBe('expected text, got nothing');
    expect(problemAt(result.problems, 'ALERT_EMAIL_FROM').hint).toBe('this setting is required');
    expect(problemAt(result.problems, 'ALERT_EMAIL_TO').message).toContain('expected an email address');
  });

  it('says how to configure when nothing is configured at all', () => {
    const result = loadConfig({ cwd: dir, env: { HOME: '/root' } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]?.message).toContain('got neither');
    expect(result.problems[0]?.hint).toContain('SHELFWATCH_CONFIG');
  });
});

describe('formatProblems', () => {
  it('writes one line per problem: path: message (hint)', () => {
    expect(
      formatProblems([
        {
          path: 'workspaces[0].plan',
          message: 'expected "studio", got "gold"',
          hint: 'did you mean "studio"?',
        },
        { path: 'redis.url', message: 'expected a URL' },
      ]),
    ).toBe(
      'workspaces[0].plan: expected "studio", got "gold" (did you mean "studio"?)\nredis.url: expected a URL',
    );
  });
});
