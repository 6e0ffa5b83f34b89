/**
 * Issue 27's security item for what sends the API key and what reads a contract: one outbound-URL
 * policy (util/key-url.ts) for the client, init and probe; contract paths that refuse the prototype's
 * names; contract files capped like config files.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileGetter, compileSetter, ForbiddenPathError } from '../../src/api/contract/path.ts';
import {
  createAnalyticsClient,
  defaultContract,
  loadContractFile,
  parseContract,
} from '../../src/api/index.ts';
import { createSimDialect, probeService } from '../../src/tools/probe/index.ts';
import { checkKeyUrl, KeyUrlError } from '../../src/util/key-url.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch } from '../helpers/cli.ts';

const KEY = 'sk_outbound_0123456789';

describe('the outbound-URL policy: where the API key may go', () => {
  it.each([
    ['http://api.example.com', false, 'plain http:// to "api.example.com"'],
    ['ftp://api.example.com', false, 'starting with "ftp://"'],
    ['https://user:pw@api.example.com', false, 'without credentials, query or fragment'],
    ['https://api.example.com/?key=1', false, 'without credentials, query or fragment'],
    ['not a url', false, 'not a URL'],
    ['https://api.example.com/v', true, ''],
    ['http://127.0.0.1:4010', true, ''],
    ['http://[::1]:4010', true, ''],
  ])('%s → ok %s', (url, ok, message) => {
    const verdict = checkKeyUrl(url);
    expect(verdict.ok).toBe(ok);
    if (!verdict.ok) {
      expect(verdict.message).toContain(message);
      expect(verdict.message).not.toContain('user:pw');
    }
  });

  it('the client (run, validate --online) refuses plain http off this machine unless allowInsecure', async () => {
    expect(() => createAnalyticsClient({ baseUrl: 'http://api.example.com', apiKey: KEY })).toThrow(
      /plain http:\/\/ to "api.example.com"/,
    );
    const allowed = createAnalyticsClient({
      baseUrl: 'http://api.example.com',
      apiKey: KEY,
      allowInsecure: true,
    });
    await allowed.close();
  });

  it('probe refuses before its first request and before any budget is taken', async () => {
    let taken = 0;
    const probing = probeService({
      baseUrl: 'http://192.0.2.1:9',
      apiKey: KEY,
      contract: defaultContract(),
      endpoints: ['rankings'],
      now: Date.now(),
      beforeRequest: async () => {
        taken += 1;
      },
      timeoutMs: 1_000,
    });
    await expect(probing).rejects.toBeInstanceOf(KeyUrlError);
    expect(taken).toBe(0);
  });

  it(
    'init refuses plain http to another host with exit 2, before probing',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-outbound-'));
      const outcome = await shelfwatch(
        ['init', '--base-url', 'http://192.0.2.1:9', '--out', join(dir, 'shelfwatch.yaml')],
        { PUBLISHING_API_KEY: KEY },
        20_000,
      );
      expect(outcome.stderr).toContain('plain http:// to "192.0.2.1"');
      expect(outcome.stdout).not.toContain('probe');
      expect(outcome.code).toBe(2);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('contract paths never reach the prototype', () => {
  it.each(['__proto__.polluted', 'a.constructor', 'prototype'])(
    '%s is a validate error naming the place',
    (path) => {
      const load = parseContract({ endpoints: { book: { fields: { title: path } } } }, 'evil.yaml');
      if (load.ok) throw new Error('accepted');
      expect(load.problems).toEqual([
        expect.objectContaining({
          path: 'endpoints.book.fields.title',
          message: expect.stringContaining('expected a path without "__proto__", "constructor", "prototype"'),
        }),
      ]);
    },
  );

  it('in pagination paths too', () => {
    const load = parseContract(
      { pagination: { page: { param: 'p', totalPages: '__proto__.n' } } },
      'evil.yaml',
    );
    expect(load.ok).toBe(false);
  });

  it('the compiled getters and setters (the simulator writes through them) refuse them as well', () => {
    expect(() => compileSetter('__proto__.polluted')).toThrow(ForbiddenPathError);
    expect(() => compileGetter('constructor.name')).toThrow(ForbiddenPathError);
    // A contract the schema accepts still writes nothing onto Object.prototype when served.
    const load = parseContract({ endpoints: { book: { fields: { title: 'meta.title' } } } }, 'ok.yaml');
    if (!load.ok) throw new Error(JSON.stringify(load.problems));
    createSimDialect(load.contract);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('contract files are capped like config files', () => {
  it('a file over 1 MiB is refused unread, naming its size', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-contract-size-'));
    const file = join(dir, 'huge.yaml');
    writeFileSync(file, `# ${'x'.repeat(2 * 1024 * 1024)}\nversion: 1\n`);
    const load = loadContractFile(file);
    if (load.ok) throw new Error('accepted');
    expect(load.problems[0]?.message).toMatch(/at most 1 MiB, got \d+ bytes/);
  });

  it('a directory is refused as not a regular file', () => {
    const load = loadContractFile(tmpdir());
    if (load.ok) throw new Error('accepted');
    expect(load.problems[0]?.message).toContain('expected a regular contract file');
  });
});
