import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDigestCommand } from '../../src/cli/digest.ts';
import { CliError } from '../../src/cli/errors.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { parsePlan, type RunningSimulator, startSimulator } from '../../src/sim/index.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';

const KEY = 'sk_test_digest_cli_0123456789';
const prefix = testPrefix('digest-cli');
testRedis(prefix);
const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-digest-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let sim: RunningSimulator;
let configPath: string;

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    seed: 3,
    books: 3,
    campaigns: 1,
    keys: [{ key: KEY, workspace: 'acme', plan: parsePlan('custom:1000:1000000') }],
  });
  configPath = join(dir, 'shelfwatch.yaml');
  const agent = new Agent();
  const res = await request(`${sim.url}/_sim/world`, {
    dispatcher: agent,
    headers: { 'x-sim-admin-token': sim.adminToken },
  });
  const world = (await res.body.json()) as { books: { asin: string; marketplaces: string[] }[] };
  await agent.close();
  const books = world.books.map(
    (b) => `      - { asin: ${b.asin}, marketplaces: [${b.marketplaces.join(', ')}] }`,
  );
  writeFileSync(
    configPath,
    [
      'redis:',
      `  url: ${redisUrl()}`,
      `  prefix: "${prefix}"`,
      'workspaces:',
      '  - id: acme',
      `    baseUrl: ${sim.url}`,
      `    apiKey: ${KEY}`,
      '    plan: custom:1000:1000000',
      '    timeZone: America/New_York',
      '    books:',
      ...books,
      'channels:',
      `  - { id: box, type: outbox, dir: ${join(dir, 'outbox')} }`,
      'digest:',
      '  recipients: [{ workspace: acme, channel: box }]',
    ].join('\n'),
  );
});
afterAll(() => sim?.close());

/** The command's io: stdout into `write`, a clean environment, the repository as its folder. */
function ioWith(write: (text: string) => void): CliIo {
  return {
    stdout: { write },
    stderr: { write: () => true },
    env: { PATH: process.env.PATH ?? '' },
    cwd: process.cwd(),
    stdinIsTTY: false,
    readStdin: () => '',
    untilStopped: () => new Promise(() => {}),
  };
}

async function digest(args: string[]): Promise<{ lines: string[]; out: string }> {
  const lines: string[] = [];
  let out = '';
  const program = new Command('shelfwatch')
    .exitOverride()
    .configureOutput({ writeOut: (text) => (out += text), writeErr: (text) => (out += text) });
  registerDigestCommand(
    program,
    ioWith((text) => lines.push(text.replace(/\n$/, ''))),
  );
  await program.parseAsync(['digest', ...args], { from: 'user' });
  return { lines, out };
}

async function failure(args: string[]): Promise<unknown> {
  return digest(args).then(
    () => {
      throw new Error('expected the command to fail');
    },
    (error: unknown) => error,
  );
}

describe('shelfwatch digest', () => {
  it('writes the HTML with its charts inlined to --out and sends nothing', async () => {
    const file = join(dir, 'preview.html');
    const { lines } = await digest(['--now', '--out', file, '--config', configPath]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^wrote .*preview\.html: Daily digest for acme — /);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('src="data:image/png;base64,');
    expect(html).not.toContain('cid:');
    expect(existsSync(join(dir, 'outbox'))).toBe(false);
  });

  it('sends to the configured recipients without --out', async () => {
    const { lines } = await digest(['--now', '--config', configPath, '--workspace', 'acme']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^sent to box \(.*\.eml\): Daily digest for acme — /);
  });

  it('--json prints only {sent, failed} as JSON', async () => {
    const { lines } = await digest(['--now', '--json', '--config', configPath, '--workspace', 'acme']);
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(printed).toEqual({
      sent: [
        {
          workspace: 'acme',
          channel: 'box',
          to: expect.stringMatching(/\.eml$/),
          subject: expect.stringMatching(/^Daily digest for acme — /),
        },
      ],
      failed: [],
    });
  });

  it('answers usage errors with exit code 2 and shows examples in --help', async () => {
    const noNow = await failure(['--config', configPath]);
    expect(noNow).toBeInstanceOf(CliError);
    expect((noNow as CliError).exitCode).toBe(2);
    const badWorkspace = await failure(['--now', '--workspace', 'nope', '--config', configPath]);
    expect((badWorkspace as CliError).exitCode).toBe(2);
    expect((badWorkspace as CliError).message).toContain('known: acme');
    const badOut = await failure(['--now', '--out', join(dir, 'missing', 'x.html'), '--config', configPath]);
    expect((badOut as CliError).message).toMatch(/^--out: cannot write/);
    const unknown = await failure(['--now', '--bogus']);
    expect(unknown).toBeInstanceOf(CommanderError);
    const help = await failure(['--help']);
    expect((help as CommanderError).code).toBe('commander.helpDisplayed');
  });

  it('prints examples in its help', async () => {
    let text = '';
    const program = new Command('shelfwatch')
      .exitOverride()
      .configureOutput({ writeOut: (t) => (text += t) });
    registerDigestCommand(
      program,
      ioWith(() => {}),
    );
    await program.parseAsync(['digest', '--help'], { from: 'user' }).catch(() => {});
    expect(text).toContain('--out <file.html>');
    expect(text).toContain('$ shelfwatch digest --now --out digest.html');
  });
});
