/**
 * The program as tests and the binary run it: built per call (src/cli/program.ts), each command's
 * module loaded when that command runs, and the binary's early `--version` answer kept equal to
 * the program's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_SUMMARIES } from '../../src/cli/commands.ts';
import { CLI_TEST_TIMEOUT_MS, ROOT, runCli, runCliProcess } from '../helpers/cli.ts';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('the program in process', () => {
  it('--version and -V print the package version, exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      expect(await runCli([flag])).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('--help lists every command with its summary', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const [name, summary] of Object.entries(COMMAND_SUMMARIES)) {
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(`${name} ${summary}`);
    }
  });

  // The first import of every command's module compiles most of src/: a while on a busy machine.
  it("each command's module loads, registers the command under its name and describes it with its summary", {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async () => {
    const helps = await Promise.all(
      Object.keys(COMMAND_SUMMARIES).map(async (name) => ({ name, help: await runCli([name, '--help']) })),
    );
    for (const { name, help } of helps) {
      expect(help.code, `${name} --help: ${help.stderr}`).toBe(0);
      expect(help.stdout).toContain(`Usage: shelfwatch ${name} [options]`);
      const summary = COMMAND_SUMMARIES[name as keyof typeof COMMAND_SUMMARIES];
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(summary);
    }
  });

  it('`help NAME` shows the command’s own help, options included', async () => {
    const help = await runCli(['help', 'validate']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--online');
  });

  it('an unknown command is exit 2 with a suggestion', async () => {
    const outcome = await runCli(['valdate']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe(
      "shelfwatch: unknown command 'valdate' (Did you mean validate?) (see --help)\n",
    );
  });
});

describe('the real binary', () => {
  it('answers --version early with the line the program prints', {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async () => {
    const [early, program] = await Promise.all([
      runCliProcess(['--version']),
      // `--verbose` takes the version past the early answer into the program.
      runCliProcess(['--verbose', '--version']),
    ]);
    expect(early).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(program).toMatchObject({ code: 0, stdout: early.stdout, stderr: '' });
  });

  it('exits with the command’s code: 2 for bad usage', { timeout: CLI_TEST_TIMEOUT_MS }, async () => {
    const outcome = await runCliProcess(['validate', '--frob']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe("shelfwatch: unknown option '--frob' (see --help)\n");
  });

  it('exits 0 without a word when the reader of its output stops early (EPIPE)', {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async () => {
    // `schema` prints more than a pipe holds, so its writes meet the closed pipe whatever the
    // timing; `true` has exited before node starts, so the early `--version` answer meets it too.
    const outcome = await runCliProcess([], {
      shell:
        '{ "$NODE" "$BIN" schema; echo "schema $?" >&2; } | head -c 1; { "$NODE" "$BIN" --version; echo "version $?" >&2; } | true',
    });
    expect(outcome).toMatchObject({ code: 0, stdout: '{', stderr: 'schema 0\nversion 0\n' });
  });
});
