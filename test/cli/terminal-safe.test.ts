/**
 * Untrusted text reaches the terminal without its escape sequences: a last error read back from
 * Redis (the API's own words) cannot clear the screen or plant a hyperlink through `status`, nor can
 * an error message through the CLI's one error line. `--json` keeps the text exactly, escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { gatherStatus, type StatusReport } from '../../src/app/status.ts';
import { formatTable, printJson, terminalText } from '../../src/cli/format.ts';
import { formatStatus } from '../../src/cli/status.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

/** Clear screen, cursor home, an OSC 8 hyperlink, an 8-bit CSI colour, a bidi override, CR LF, BEL. */
const HOSTILE =
  'boom \u001b[2J\u001b[H\u001b]8;;https://evil.example/\u0007click here\u001b]8;;\u0007 \u009b31mred\u001b[0m \u202eevil\r\nsecond line\u0007';
/** Anything a terminal would act on; a line feed only where the output puts one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminalText and formatTable', () => {
  it('remove escape sequences whole and keep the readable text', () => {
    expect(terminalText(HOSTILE)).toBe('boom click here red evil\nsecond line');
  });

  it('a table cell is one terminal-safe line, and the columns still line up', () => {
    const table = formatTable(
      ['id', 'error'],
      [
        ['a', HOSTILE],
        ['b', 'fine'],
      ],
    );
    const lines = table.split('\n');
    expect(lines).toHaveLength(4);
    expect(table).not.toMatch(ACTIVE);
    expect(lines[2]).toBe('a   boom click here red evil second line');
    expect(lines[3]).toBe('b   fine');
  });

  it('--json keeps the text exactly but escapes what JSON.stringify leaves raw (C1, bidi)', () => {
    let printed = '';
    printJson(
      { error: HOSTILE },
      {
        write: (text: string) => {
          printed += text;
        },
      },
    );
    expect(printed).not.toMatch(ACTIVE);
    expect(JSON.parse(printed)).toEqual({ error: HOSTILE });
  });
});

describe('status with a hostile last error in Redis', () => {
  const prefix = testPrefix('terminal');
  testRedis(prefix);
  const dir = tempDir();
  const raw = {
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'acme',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk-terminal',
        books: [{ asin: 'B0CJ4XQ2ZK', marketplaces: ['US'], keywords: { top: 5 } }],
        sales: false,
      },
    ],
  };
  let runtime: Runtime;
  let report: StatusReport;

  beforeAll(async () => {
    runtime = new Runtime({
      config: parseOrThrow(raw),
      logger: silentLogger(),
      version: 'test',
      notifiers: new Map(),
    });
    await runtime.connect();
    const [target] = runtime.registry.all('acme');
    if (target === undefined) throw new Error('no target');
    await runtime.store.setHealth(target.ref, {
      consecutiveFailures: 3,
      lastOutcome: 'error',
      lastPollAt: Date.now(),
      lastError: HOSTILE,
      costPerPoll: null,
      sourceHealth: undefined,
    });
    report = await gatherStatus(runtime);
  });

  afterAll(async () => {
    await runtime?.close();
  });

  it('the table shows the error as plain text on its line', () => {
    const text = formatStatus(report);
    expect(report.workspaces[0]?.targets.some((t) => t.lastError === HOSTILE)).toBe(true);
    expect(text).not.toMatch(ACTIVE);
    const line = text.split('\n').find((l) => l.includes('boom')) ?? '';
    expect(line).toContain('boom click here red evil second line');
  });

  it(
    'the real `shelfwatch status` prints no escape sequence, and neither does its error line',
    async () => {
      const file = writeConfig(dir, 'terminal.yaml', raw);
      const [status, missing] = await Promise.all([
        shelfwatch(['status', '--config', file]),
        shelfwatch(['validate', '--config', `${dir}/\u001b[2J\u001b]0;pwned\u0007nope.yaml`]),
      ]);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain('boom click here red evil second line');
      expect(status.stdout.replace(/\n/g, '')).not.toMatch(ACTIVE);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('nope.yaml');
      expect(missing.stderr.replace(/\n/g, '')).not.toMatch(ACTIVE);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
