/**
 * `shelfwatch probe` against the simulator speaking each dialect: the conformance table field by
 * field, the suggested contract (pinned for dialect A: merged with the edits it could not decide it
 * is the 'dialect-a-probed' dialect that engine.test.ts runs), the recorded folder free of the key
 * and emails, offline analysis without requests, and one-line failures that spend what they said.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { redactAnswer, writeRecording } from '../../src/tools/probe/probe-record.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { type SimFixture, startSimFixture } from '../helpers/sim.ts';
import { allDialects } from './helpers.ts';

const KEY = 'sk_probe_test_0123456789';
const prefix = testPrefix('probe');
testRedis(prefix);
const dir = tempDir();
const sims = new Map<string, SimFixture & { config: string }>();
let html: Server;

function configFor(name: string, baseUrl: string, apiKey = KEY): string {
  return writeConfig(dir, `${name}.yaml`, {
    redis: { url: redisUrl(), prefix },
    workspaces: [
      { id: 'main', baseUrl, apiKey, plan: 'custom:1000:1000000', books: [{ asin: 'B0PROBE001' }] },
    ],
  });
}

beforeAll(async () => {
  for (const dialect of allDialects().filter((d) => d.name !== 'dialect-a-probed')) {
    const fixture = await startSimFixture({
      seed: 21,
      books: 3,
      key: KEY,
      workspace: 'main',
      plan: 'custom:1000:1000000',
      ...(dialect.sim === undefined ? {} : { dialect: dialect.sim }),
    });
    sims.set(dialect.name, { ...fixture, config: configFor(dialect.name, fixture.url) });
  }
  html = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>');
  });
  await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const fixture of sims.values()) await fixture.close();
  await new Promise((resolve) => html?.close(resolve));
});

function served(name: string) {
  const found = sims.get(name);
  if (found === undefined) throw new Error(`no simulator for ${name}`);
  return found;
}

async function probe(name: string, extra: string[] = []) {
  const { control, config } = served(name);
  const out = join(dir, `answers-${name}`);
  const seq = await control.lastSeq();
  const outcome = await shelfwatch(['probe', '--config', config, '--out', out, ...extra]);
  const requests = (await control.requestsSince(seq)).length;
  return { ...outcome, out, requests };
}

describe('shelfwatch probe', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('fits the default dialect: exit 0, nine requests (a second page for cursor.alone), said first', async () => {
    const outcome = await probe('default');
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('probe: 9 requests from workspace main');
    expect(outcome.stdout).toContain(
      '(a second page of a list is among them: does the cursor go without the filters?)',
    );
    expect(outcome.stdout).toContain('at most 30 (--max-requests)');
    expect(outcome.stdout).toContain('The contract fits every answer.');
    expect(outcome.requests).toBe(9);
  });

  it('dialect A: field by field, candidates, the suggested contract (pinned), a folder without secrets', async () => {
    const outcome = await probe('dialect-a');
    expect(outcome.code).toBe(3);
    // Its parameter names are not ours: each refused one is tried again under the next name.
    expect(outcome.stdout).toContain(`probe: spent ${outcome.requests} requests`);
    expect(outcome.requests).toBeLessThanOrEqual(30);
    const bsr = outcome.stdout.split('\n').find((line) => line.startsWith('bsrRank '));
    expect(bsr).toMatch(
      /missing\s+bsr\.rank\s+nothing \(the field is missing\)\s+result\.salesRank\.current/,
    );
    expect(outcome.stdout).toMatch(/rankings \(status 200\): differs\n\s+no list at data/);
    expect(outcome.stdout).toContain('enums.marketplace: the API says "ATVPDKIKX0DER"');
    const suggested = parseYaml(readFileSync(join(outcome.out, 'contract.suggested.yaml'), 'utf8'));
    const pinned = parseYaml(
      readFileSync(join(import.meta.dirname, 'dialects/dialect-a.probed.yaml'), 'utf8'),
    );
    expect(suggested).toEqual(pinned);
    const recorded = readdirSync(outcome.out).filter((f) => f.endsWith('.json'));
    expect(recorded.length).toBeGreaterThanOrEqual(7);
    for (const file of recorded) {
      const text = readFileSync(join(outcome.out, file), 'utf8');
      expect(text).not.toContain(KEY);
      expect(text.toLowerCase()).not.toContain('authorization');
      expect(
        text.match(/[\w.+-]+@[\w.-]+\.[a-z]{2,}/gi)?.filter((e) => e !== 'reader@redacted.invalid') ?? [],
      ).toEqual([]);
    }
  });

  it('dialect B: a wrong type where a list was expected; --offline says the same with no request', async () => {
    const outcome = await probe('dialect-b');
    expect(outcome.code).toBe(3);
    expect(outcome.stdout).toMatch(/keywords\s+wrong type\s+data\s+an object with id, kw\s+data\.kw/);
    // Its sales answer shows a next URL, its rankings answer no next page: not assumed to be alike.
    // Dialect B's page count is in every answer: page numbers are recognised from the body.
    expect(outcome.stdout).toContain('pagination: page numbers seen in the body');
    const { control } = served('dialect-b');
    const seq = await control.lastSeq();
    const offline = await shelfwatch(['probe', '--offline', outcome.out]);
    expect(offline.code).toBe(3);
    expect(offline.stdout.split('\n').filter((l) => / (found|missing|wrong type) /.test(l))).toEqual(
      outcome.stdout.split('\n').filter((l) => / (found|missing|wrong type) /.test(l)),
    );
    expect(await control.requestsSince(seq)).toEqual([]);
  });

  it('a wrong key, a wrong URL, an HTML answer: one line, exit 1, at most one request', async () => {
    const { sim, control } = served('default');
    const seq = await control.lastSeq();
    const wrongKey = await shelfwatch([
      'probe',
      '--config',
      configFor('wrong-key', sim.url, 'sk_wrong_0123456789'),
      '--out',
      join(dir, 'wk'),
    ]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrongKey.stderr).toContain('the service refused the key (401 on GET /v1/rankings)');
    expect((await control.requestsSince(seq)).length).toBe(1);

    const htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
    const page = await shelfwatch([
      'probe',
      '--config',
      configFor('html', htmlUrl),
      '--out',
      join(dir, 'html'),
    ]);
    expect(page.code).toBe(1);
    expect(page.stderr.trim().split('\n')).toHaveLength(1);
    expect(page.stderr).toMatch(/answered GET \/v1\/rankings with HTML \(status 200\).*spent 1 request/);

    const nowhere = await shelfwatch([
      'probe',
      '--config',
      configFor('nowhere', 'http://127.0.0.1:1'),
      '--out',
      join(dir, 'nw'),
    ]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/^shelfwatch: probe: cannot reach http:\/\/127\.0\.0\.1:1: .*\n$/);
  });

  it('--offline on a malformed recording names the file and exits 2', async () => {
    const bad = join(dir, 'bad');
    writeRecording(
      bad,
      [{ endpoint: 'book', method: 'GET', path: '/v1/books/B0X', status: 200, headers: {}, body: {} }],
      [],
    );
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(bad, '02-sales.json'), '{"endpoint": "sales", "method": "GET"');
    const outcome = await shelfwatch(['probe', '--offline', bad]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/02-sales\.json: not valid JSON/);
  });
});

describe('recording', () => {
  it('takes out the key, credentials and reader emails before writing', () => {
    const answer = redactAnswer(
      {
        endpoint: 'invites',
        method: 'POST',
        path: `/v1/arc/invites?token=${KEY}`,
        status: 200,
        headers: { authorization: `Bearer ${KEY}`, 'set-cookie': 's=1', 'x-echo': KEY },
        body: { data: [{ email: 'ann.reader@example.com', note: `sent to bob@mail.example.org by ${KEY}` }] },
      },
      [KEY],
    );
    const text = JSON.stringify(answer);
    expect(text).not.toContain(KEY);
    expect(text).not.toMatch(/authorization|set-cookie|example\.com|mail\.example/i);
    expect(answer.body).toEqual({
      data: [{ email: 'reader@redacted.invalid', note: 'sent to reader@redacted.invalid by [redacted]' }],
    });
  });
});
