/**
 * The Docker image installs production dependencies only (`npm ci --omit=dev`). This rebuilds that
 * node_modules from the lock (hard links, so it costs no copying) next to a copy of the sources,
 * and runs the CLI and a terminal logger there: neither may need tsx, smtp-server or pino-pretty
 * (the demo's SMTP capture and the pretty printer are dev tools). tsx runs the sources from outside
 * the copy, standing in for the compile step the image does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, runNode } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Outside the repository: Node looks for packages in every parent folder's node_modules.
const COPY = mkdtempSync(join(tmpdir(), 'shelfwatch-production-deps-'));
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href;
const DEV_TOOLS = ['tsx', 'esbuild', 'smtp-server', 'mailparser', 'pino-pretty', 'typescript', 'vitest'];

interface LockEntry {
  dev?: boolean;
}

/** Top-level packages `npm ci --omit=dev` installs, as the lock records them. */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && entry.dev !== true)
    .map(([path]) => path.slice('node_modules/'.length))
    .filter((name) => !name.includes('/node_modules/')); // nested ones come with their parent
}

/** Hard links where the temp folder is on the same file system, a real copy elsewhere. */
function hardLinkCopy(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    execFileSync('cp', ['-al', from, to], { stdio: 'ignore' });
  } catch {
    execFileSync('cp', ['-a', from, to]);
  }
}

beforeAll(() => {
  for (const name of productionPackages()) {
    // Platform packages of other machines are in the lock but not installed here.
    const from = join(ROOT, 'node_modules', name);
    if (existsSync(from)) hardLinkCopy(from, join(COPY, 'node_modules', name));
  }
  for (const entry of ['src', 'workers', 'examples', 'package.json', 'tsconfig.json']) {
    hardLinkCopy(join(ROOT, entry), join(COPY, entry));
  }
});

afterAll(() => rmSync(COPY, { recursive: true, force: true }));

it('the production dependencies leave out the dev tools', () => {
  const installed = productionPackages();
  expect(DEV_TOOLS.filter((name) => installed.includes(name))).toEqual([]);
});

it.concurrent('the CLI loads and checks the Docker config without dev dependencies', async () => {
  const env = Object.fromEntries(
    readFileSync(join(ROOT, '.env.example'), 'utf8')
      .split('\n')
      .map((line) => /^([A-Z_]+)=(.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1], match[2]]),
  );
  const out = await runNode(
    '--import',
    [TSX, join(COPY, 'src', 'cli', 'main.ts'), 'validate', '--config', join(COPY, 'examples', 'docker.yaml')],
    env,
    CLI_TEST_TIMEOUT_MS,
  );
  // Warnings about the compose network's plain http and SMTP (allowInsecure) are expected.
  expect(out.stderr).not.toMatch(/Cannot find|ERR_MODULE_NOT_FOUND/);
  expect(out).toMatchObject({ code: 0 });
  expect(out.stdout).toContain('config OK');
});

it.concurrent('a logger asked to be pretty writes JSON when pino-pretty is not installed', async () => {
  const logger = pathToFileURL(join(COPY, 'src', 'ops', 'logger.ts')).href;
  const out = await runNode(
    '--import',
    [
      TSX,
      '--input-type=module',
      '-e',
      `import { createLogger } from ${JSON.stringify(logger)};
       createLogger({ pretty: true }).info('pretty or not');`,
    ],
    {},
    CLI_TEST_TIMEOUT_MS,
  );
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toMatchObject({ msg: 'pretty or not' });
});
