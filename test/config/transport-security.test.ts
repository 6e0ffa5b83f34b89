/**
 * TLS off this machine: a plain http:// API base URL is refused unless the workspace opts out, and
 * plain SMTP to a server that offers no STARTTLS is refused before AUTH unless the channel opts
 * out. Both opt-outs are `allowInsecure: true`, and `validate` warns about each one used.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmtpPool, type SmtpPool, SmtpSendError } from '../../src/channels/smtp-pool.ts';
import { insecureSettings } from '../../src/config/insecure-settings.ts';
import { parseConfig } from '../../src/config/load.ts';
import { Secret } from '../../src/config-kit/secret.ts';
import { isLoopbackHost } from '../../src/config-kit/transport-security.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { problemAt, tempDir, validRaw } from './helpers.ts';

type Raw = Record<string, unknown>;

function withWorkspace(change: Raw): Raw {
  const raw = validRaw();
  Object.assign((raw.workspaces as Raw[])[0] ?? {}, change);
  return raw;
}

function withMailChannel(change: Raw): Raw {
  const raw = validRaw();
  Object.assign((raw.channels as Raw[])[2] ?? {}, change);
  return raw;
}

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LocalHost', true],
    ['127.0.0.1', true],
    ['127.45.6.7', true],
    ['[::1]', true],
    ['::1', true],
    ['[::ffff:7f00:1]', true],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['[::2]', false],
    ['localhost.example.com', false],
    ['api.example.com', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('a workspace base URL over plain http', () => {
  it('off this machine: refused, naming the host and the opt-out', () => {
    const result = parseConfig(withWorkspace({ baseUrl: 'http://api.example.com/' }));
    if (result.ok) throw new Error('accepted');
    expect(problemAt(result.problems, 'workspaces[0].baseUrl')).toEqual({
      path: 'workspaces[0].baseUrl',
      message: 'expected an https:// URL for a host off this machine, got plain http:// to "api.example.com"',
      hint: 'the API key would travel unencrypted: use https, or set allowInsecure: true on this workspace for a network you trust',
    });
  });

  it.each(['http://127.0.0.1:4010', 'http://127.9.0.1', 'http://localhost:4010', 'http://[::1]:4010'])(
    'on this machine (%s): accepted without a warning',
    (baseUrl) => {
      const result = parseConfig(withWorkspace({ baseUrl }));
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      expect(insecureSettings(result.config)).toEqual([]);
    },
  );

  it('with allowInsecure: true: accepted, with a warning; over https the opt-out changes nothing', () => {
    const plain = parseConfig(withWorkspace({ baseUrl: 'http://sim.internal:4010', allowInsecure: true }));
    if (!plain.ok) throw new Error(JSON.stringify(plain.problems));
    expect(insecureSettings(plain.config)).toEqual([
      {
        path: 'workspaces[0].baseUrl',
        message:
          'plain http to "sim.internal" (allowInsecure: true): the API key and the data travel unencrypted',
      },
    ]);
    const tls = parseConfig(withWorkspace({ allowInsecure: true }));
    if (!tls.ok) throw new Error(JSON.stringify(tls.problems));
    expect(insecureSettings(tls.config)).toEqual([]);
  });
});

/**
 * A server on loopback reached through a name the loopback check does not take for loopback:
 * `127.1` is the classic inet_aton shorthand of 127.0.0.1 (the OS resolver reads it so), while
 * `isLoopbackHost` accepts only the written forms it knows and so treats it as remote, the strict
 * direction. The test's traffic never leaves loopback.
 */
function remoteLookingHost(): { listen: string; connect: string } {
  return { listen: '127.0.0.1', connect: '127.1' };
}

describe('SMTP to a server off this machine that offers no STARTTLS', () => {
  const host = remoteLookingHost();
  const auths: string[] = [];
  const delivered: string[] = [];
  let connections = 0;
  let server: SMTPServer;
  let pool: SmtpPool;
  let url: string;

  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onConnect(_session, callback) {
        connections += 1;
        callback();
      },
      onAuth(login, _session, callback) {
        auths.push(login.username ?? '');
        callback(null, { user: login.username });
      },
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          delivered.push(session.envelope.rcptTo.map((r) => r.address).join(','));
          callback();
        });
      },
    });
    server.on('error', () => {});
    await new Promise<void>((resolve) => server.listen(0, host.listen, resolve));
    const { port } = server.server.address() as AddressInfo;
    url = `smtp://mailer:smtp-password@${host.connect}:${port}`;
    pool = createSmtpPool({ rateLimit: 0, connectionTimeout: 5_000, greetingTimeout: 5_000 });
  });

  afterAll(async () => {
    await pool?.closeAll();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  const mail = { from: 'alerts@example.com', to: 'team@example.com', subject: 'tls', text: 'hello' };

  it.each([
    ['the plain URL', ''],
    ['a URL whose parameters try to switch TLS off', '?requireTLS=false&ignoreTLS=true'],
  ])('%s: the send is refused after EHLO, before AUTH', async (_name, params) => {
    expect(isLoopbackHost(host.connect)).toBe(false);
    const before = connections;
    const error = await pool.sendMail(new Secret(`${url}${params}`), mail).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SmtpSendError);
    expect((error as SmtpSendError).code).toBe('ETLS');
    expect((error as SmtpSendError).message).not.toContain('smtp-password');
    expect(connections).toBeGreaterThan(before); // it reached the server: refused by the client
    expect(auths).toEqual([]);
    expect(delivered).toEqual([]);
  });

  it('with the channel opt-out (allowInsecure: true) it logs in and delivers', async () => {
    const info = await pool.sendMail(new Secret(url), mail, { allowInsecure: true });
    expect(info.accepted).toEqual(['team@example.com']);
    expect(auths).toEqual(['mailer']);
    expect(delivered).toEqual(['team@example.com']);
  });
});

describe('the email channel opt-out', () => {
  const dir = tempDir();

  it(
    'is a config key; validate and run warn when it is used, and validate still says OK',
    async () => {
      const raw = withMailChannel({
        smtpUrl: 'smtp://user:smtp-password@mail.internal:25',
        allowInsecure: true,
      });
      const checked = parseConfig(raw);
      if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
      const warning = {
        path: 'channels[2].smtpUrl',
        message:
          'STARTTLS not required by "mail.internal" (allowInsecure: true): the SMTP password and the mail travel unencrypted when the server offers no TLS',
      };
      expect(insecureSettings(checked.config)).toEqual([warning]);
      const file = writeConfig(dir, 'insecure.yaml', raw);
      // `run` logs its warnings before it connects: with no Redis there it stops right after them.
      const noRedis = writeConfig(dir, 'insecure-no-redis.yaml', {
        ...raw,
        redis: { url: 'redis://127.0.0.1:1' },
      });
      const [validate, run] = await Promise.all([
        shelfwatch(['validate', '--config', file]),
        shelfwatch(['run', '--config', noRedis], {}, 40_000),
      ]);
      expect(validate.code, validate.stderr).toBe(0);
      expect(validate.stdout).toMatch(/^config OK: /);
      expect(validate.stderr).toBe(
        `shelfwatch: warning: ${warning.path}: ${warning.message}\nshelfwatch: note: console.publicUrl: not set: messages will carry no mute or unsubscribe links (set the address people open the console at, and console.linkSecret)\n`,
      );
      expect(validate.stderr).not.toContain('smtp-password');
      const logged = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === warning.message);
      expect(logged, run.stdout + run.stderr).toEqual([
        expect.objectContaining({ level: 40, path: warning.path }),
      ]);
      expect(run.stdout + run.stderr).not.toContain('smtp-password');
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
