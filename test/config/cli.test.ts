// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Outcome, ROOT, runCli } from '../helpers/cli.ts';
import { tempDir, writeFile } from './helpers.ts';

/** The CLI in process with only the given environment (plus PATH), run from `cwd`. */
async function shelfwatch(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<Outcome> {
  const outcome = await runCli(args, { env, cwd });
  return { code: outcome.code ?? -1, stdout: outcome.stdout, stderr: outcome.stderr };
}

describe('shelfwatch validate / schema', () => {
  const dir = tempDir();

  it('exits 2 and prints one line with a path per problem', async () => {
    const bad = writeFile(
      dir,
      'bad.yaml',
      [
        'workspaces:',
        '  - id: acme',
        '    baseUrl: https://api.example.com',
        '    apiKey: ${PUBLISHING_API_KEY}',
        '    plan: gold',
        '    books: [{ asin: B0BAD, marketplaces: [US, GB] }]',
        'channels: [{ id: log, type: log }]',
        'routes: [{ channels: [team-slack] }]',
      ].join('\n'),
    );
    const outcome = await shelfwatch(['validate', '--config', bad]);
    expect(outcome.code).toBe(2);
    const lines = outcome.stderr.trim().split('\n');
    expect(lines[0]).toBe(`shelfwatch: ${bad}: 5 problems`);
    expect(lines.slice(1).map((line) => line.trim().split(':')[0])).toEqual([
      'workspaces[0].apiKey',
      'workspaces[0].plan',
      'workspaces[0].books[0].asin',
      'workspaces[0].books[0].marketplaces[1]',
      'routes[0].channels[0]',
    ]);
    expect(outcome.stderr).toContain('PUBLISHING_API_KEY');
  });

  it('prints a summary and exits 0 for the example', async () => {
    const outcome = await shelfwatch(['validate', '--config', 'examples/shelfwatch.yaml'], {
      PUBLISHING_API_KEY: 'sk-cli',
    });
    // The example sets no console.publicUrl: its messages carry no mute links, which validate notes.
    expect(outcome.stderr).toBe(
      'shelfwatch: note: console.publicUrl: not set: messages will carry no mute or unsubscribe links (set the address people open the console at, and console.linkSecret)\n',
    );
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe('config OK: 2 workspaces, 15 targets, 5 channels\n');
  });

  it('validates the environment-only mode', async () => {
    const outcome = await shelfwatch(
      ['validate'],
      {
        PUBLISHING_API_BASE_URL: 'https://api.example.com',
        PUBLISHING_API_KEY: 'k',
        SHELFWATCH_ASINS: 'B0CJ4XQ2ZK,B0CJ4XQ2ZK:UK',
      },
      dir,
    );
    expect(outcome.stdout).toBe('config OK: 1 workspace, 6 targets, 1 channel\n');
  });

  it('prints the JSON Schema, or writes it with --out', async () => {
    const printed = await shelfwatch(['schema']);
    expect(printed.code).toBe(0);
    const schema = JSON.parse(printed.stdout) as { title: string; properties: Record<string, unknown> };
    expect(schema.title).toBe('shelfwatch configuration');
    expect(Object.keys(schema.properties)).toContain('workspaces');

    const out = resolve(dir, 'shelfwatch.schema.json');
    const written = await shelfwatch(['schema', '--out', out]);
    expect(written.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(schema);
  });

  it('has --help with examples on both commands', async () => {
    for (const command of ['validate', 'schema']) {
      const help = await shelfwatch([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: shelfwatch ${command}`);
      expect(help.stdout).toContain(`$ shelfwatch ${command}`);
    }
  });
});
