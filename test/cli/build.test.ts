/**
 * The compiled build (`npm run build`) is what the Docker image runs: it must compile from a clean
 * tree and start the same CLI as the tsx entry point, package version and config checks included.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, runNode, writeConfig } from '../helpers/cli.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** tsc on a busy 2-core machine takes longer than a CLI start. */
const RUN_TIMEOUT_MS = 60_000;
// Inside the repository, so the build finds node_modules and package.json as dist/ does.
const OUT = join(ROOT, '.shelfwatch', `build-${randomBytes(4).toString('hex')}`);

beforeAll(async () => {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  // --noCheck: the same files, emitted without the type check `npm test` has just done
  // (`npm run typecheck`, the same sources): a third of the CPU, so the deadline holds on a busy machine.
  // --noResolve: each file is emitted alone (isolatedModules), so reading the declarations of
  // node_modules that the imports lead to changes no byte of the output (924 files compared, the
  // same) and cost a quarter of the rest (8.9 -> 6.7 CPU-s).
  const built = await runNode(
    tsc,
    ['-p', 'tsconfig.build.json', '--noCheck', '--noResolve', '--outDir', OUT],
    {},
    RUN_TIMEOUT_MS,
  );
  if (built.code !== 0) throw new Error(`tsc failed (${built.code}): ${built.stdout}${built.stderr}`);
}, CLI_TEST_TIMEOUT_MS);

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

describe('the compiled build', () => {
  const main = () => join(OUT, 'src', 'cli', 'main.js');

  it('is where the Docker image starts it', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const entry = /ENTRYPOINT \["node", "([^"]+)"\]/.exec(dockerfile)?.[1];
    expect(entry).toBe('dist/src/cli/main.js');
    expect(existsSync(main())).toBe(true);
  });

  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const out = await runNode(main(), ['--version'], {}, RUN_TIMEOUT_MS);
    expect(out).toMatchObject({ code: 0 });
    expect(out.stdout.trim()).toBe(pkg.version);
  });

  it(
    'checks a config like the tsx entry point: accepts a good one, names the field of a bad one',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-build-'));
      try {
        const workspace = { id: 'w', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_x', plan: 'studio' };
        const good = writeConfig(dir, 'good.yaml', {
          workspaces: [{ ...workspace, books: [{ asin: 'B000000001' }] }],
        });
        const bad = writeConfig(dir, 'bad.yaml', { workspaces: [{ ...workspace, plan: 'gold' }] });
        const ok = await runNode(main(), ['validate', '--config', good], {}, RUN_TIMEOUT_MS);
        expect(ok.code, ok.stderr).toBe(0);
        expect(ok.stdout).toContain('config OK');
        const refused = await runNode(main(), ['validate', '--config', bad], {}, RUN_TIMEOUT_MS);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain('plan');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
