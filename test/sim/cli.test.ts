import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseKeyFlag } from '../../src/cli/sim.ts';
import { loadConfig } from '../../src/config/load.ts';
import { tempDir, writeFile } from '../config/helpers.ts';
import { runCli, type StartedCli, startCli } from '../helpers/cli.ts';
import { waitFor } from '../helpers/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

// A failed assertion must not leave a simulator serving after the file.
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function run(args: string[]): Run {
  const child = spawn(process.execPath, ['bin/shelfwatch.mjs', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Resolves with the output once it matches; fails at the deadline instead of waiting blindly. */
function waitForOutput(proc: Run, pattern: RegExp, deadlineMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = proc.stdout().match(pattern);
      if (m !== null) {
        clearTimeout(timer);
        proc.child.stdout?.off('data', check);
        resolve(m);
      }
    };
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} in: ${proc.stdout()}${proc.stderr()}`)),
      deadlineMs,
    );
    proc.child.stdout?.on('data', check);
    check();
  });
}

/** Simulators started in process, stopped after the file whatever its tests did. */
const inProcess: StartedCli[] = [];
afterAll(async () => {
  for (const sim of inProcess) sim.stop();
  await Promise.all(inProcess.map((sim) => sim.outcome));
});

function startSim(args: string[]): StartedCli {
  const sim = startCli(['sim', ...args], { timeoutMs: 60_000 });
  inProcess.push(sim);
  return sim;
}

/** The first match of `pattern` in what the command has printed, waited for with a deadline. */
async function waitForLine(sim: StartedCli, pattern: RegExp): Promise<RegExpMatchArray> {
  try {
    return await waitFor(`${pattern}`, () => sim.stdout().match(pattern) ?? undefined, 15_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}; it printed: ${sim.stdout()}${sim.stderr()}`);
  }
}

describe('shelfwatch sim', () => {
  // In process: a bad flag is refused before anything starts, and the exit code is the program's.
  // The real binary is started below, where a process shows more (serving, SIGTERM, its exit).
  it.for([
    [['--speed', 'abc'], '--speed'],
    [['--key', 'sk_live_x:gold'], 'plan must be'],
    [['--key', 'no-plan'], '--key expects KEY:PLAN'],
    [['--port', '70000'], '--port'],
    [['--error-rate', '1.5'], '--error-rate'],
    [['--start-at', 'soon'], '--start-at'],
    [['--repeated-values', 'first'], '--repeated-values needs --contract'],
    [['--contract', 'test/contract/dialects/dialect-g.yaml', '--repeated-values', 'last'], 'refuse or first'],
  ] as const)('exits 2 with one line for %j', async ([args, mention], { expect }) => {
    const outcome = await runCli(['sim', ...args]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    const lines = outcome.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^shelfwatch: /);
    expect(lines[0]).toContain(mention);
  });

  it('prints the URL, token and keys, serves the API and stops on SIGTERM', async () => {
    const proc = run([
      'sim',
      '--port',
      '0',
      '--speed',
      '0',
      '--admin-token',
      'cli-token',
      '--key',
      'sk_cli_test:custom:5:100@cli',
    ]);
    const [, url] = await waitForOutput(proc, /listening on (http:\/\/\S+)\n/, 15_000);
    await waitForOutput(proc, /Ctrl\+C/, 5_000);
    expect(proc.stdout()).toContain('admin token: cli-token');
    expect(proc.stdout()).toContain('workspace cli');
    expect(proc.stdout()).not.toContain('sk_cli_test');
    const world = (await (
      await fetch(`${url}/_sim/world`, { headers: { 'X-Sim-Admin-Token': 'cli-token' } })
    ).json()) as {
      books: { asin: string }[];
    };
    const reply = await fetch(`${url}/v1/books/${world.books[0]!.asin}`, {
      headers: { Authorization: 'Bearer sk_cli_test' },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('5');
    await reply.text();
    proc.child.kill('SIGTERM');
    expect(await proc.exit).toBe(0);
    expect(proc.stdout()).toContain('simulator stopped');
  });

  it('derives a workspace from the key when none is given, without showing the key', () => {
    const spec = parseKeyFlag('sk_live_abc:custom:10:200');
    expect(spec.plan).toEqual({ name: 'custom', perMinute: 10, perMonth: 200 });
    expect(spec.workspace).toMatch(/^ws-[0-9a-f]{8}$/);
    expect(spec.workspace).not.toContain('abc');
    expect(parseKeyFlag('k:studio@team-a')).toMatchObject({
      key: 'k',
      workspace: 'team-a',
      plan: { name: 'studio' },
    });
  });

  it('lists the books and campaigns it serves; the example config uses only those', async () => {
    const sim = startSim(['--port', '0', '--speed', '0']);
    await waitForLine(sim, /Ctrl\+C/);
    sim.stop();
    const listed = sim.stdout();
    const example = loadConfig({
      path: 'examples/shelfwatch.yaml',
      env: { PUBLISHING_API_KEY: 'sk_demo_studio' },
      cwd: ROOT,
    });
    if (!example.ok) throw new Error(JSON.stringify(example.problems));
    for (const ws of example.config.workspaces) {
      for (const book of ws.books) {
        const line = listed.split('\n').find((l) => l.trim().startsWith(book.asin));
        expect(line, `${book.asin} in\n${listed}`).toBeDefined();
        for (const mp of book.marketplaces) expect(line).toContain(mp);
      }
      // The campaign's book by its title first, its ASIN after it.
      for (const campaign of ws.campaigns)
        expect(listed).toMatch(new RegExp(`  ${campaign.id}  book “[^”]+” \\(B0`));
    }
    expect(listed).toMatch(/\n {2}B0[A-Z0-9]{8} {2}US\S* +\S.*\n/);
    expect((await sim.outcome).code).toBe(0);
  });

  it("--config serves the config's books, campaigns and keys", async () => {
    const dir = tempDir();
    const file = writeFile(
      dir,
      'served.yaml',
      JSON.stringify({
        workspaces: [
          {
            id: 'mine',
            baseUrl: 'http://127.0.0.1:1',
            apiKey: 'sk_from_config_0123',
            plan: 'custom:7:1000',
            books: [{ asin: 'B0TESTBOOK', marketplaces: ['US', 'DE'] }],
            campaigns: [{ id: 'arc_mine' }],
          },
        ],
      }),
    );
    const sim = startSim(['--port', '0', '--speed', '0', '--config', file]);
    const [, url] = await waitForLine(sim, /listening on (http:\/\/\S+)\n/);
    await waitForLine(sim, /Ctrl\+C/);
    expect(sim.stdout()).toMatch(/\n {2}B0TESTBOOK {2}US,DE +\S/);
    expect(sim.stdout()).toMatch(/ {2}arc_mine {2}book “[^”]+” \(B0TESTBOOK\)/);
    expect(sim.stdout()).toContain('workspace mine');
    expect(sim.stdout()).not.toContain('sk_from_config_0123');
    expect(sim.stdout()).toContain('note: workspace mine has baseUrl http://127.0.0.1:1');
    const reply = await fetch(`${url}/v1/books/B0TESTBOOK`, {
      headers: { Authorization: 'Bearer sk_from_config_0123' },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('7');
    await reply.text();
    sim.stop();
    expect((await sim.outcome).code).toBe(0);
  });

  it("--config serves in the dialect of the config's api.contract", async () => {
    const dir = tempDir();
    const contract = fileURLToPath(new URL('../contract/dialects/dialect-a.yaml', import.meta.url));
    const file = writeFile(
      dir,
      'dialect.yaml',
      JSON.stringify({
        workspaces: [
          {
            id: 'mine',
            baseUrl: 'http://127.0.0.1:1',
            apiKey: 'sk_from_config_0123',
            api: { contract },
            books: [{ asin: 'B0TESTBOOK' }],
          },
        ],
      }),
    );
    const sim = startSim(['--port', '0', '--speed', '0', '--config', file]);
    const [, url] = await waitForLine(sim, /listening on (http:\/\/\S+)\n/);
    await waitForLine(sim, /Ctrl\+C/);
    expect(sim.stdout()).toContain(`answers in the dialect of ${contract}`);
    const reply = await fetch(`${url}/v1/books/B0TESTBOOK?marketplaceId=ATVPDKIKX0DER`, {
      headers: { Authorization: 'Bearer sk_from_config_0123' },
    });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({
      result: { productId: 'B0TESTBOOK', marketplaceId: 'ATVPDKIKX0DER' },
    });
    sim.stop();
    expect((await sim.outcome).code).toBe(0);
  });
});
