import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The import walls of .dependency-cruiser.mjs: the real tree keeps them, and a tree that breaks
 * each one fails with the rule's name (so a rule that matches nothing cannot pass unnoticed).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');
const CRUISER = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const run = promisify(execFile);

interface CheckResult {
  exitCode: number;
  output: string;
}

async function checkWalls(cwd: string): Promise<CheckResult> {
  const args = [CRUISER, '--config', CONFIG, '--output-type', 'err', 'src', 'workers'];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd, timeout: 60_000 });
    return { exitCode: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { exitCode: failed.code, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** A throwaway repository root with the given files, the project's tsconfig and node_modules. */
function fixtureTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-walls-'));
  created.push(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        allowImportingTsExtensions: true,
        noEmit: true,
        verbatimModuleSyntax: true,
      },
      include: ['src', 'workers', 'test', 'bench'],
    }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const created: string[] = [];
afterAll(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** Files every fixture has, importing nothing: the targets of the imports under test. */
const TARGETS: Record<string, string> = {
  'src/api/index.ts': 'export const index = 1;\n',
  'src/api/client.ts': 'export const client = 1;\n',
  'src/api/tooling.ts': 'export const tooling = 1;\n',
  'src/util/format.ts': 'export const format = 1;\n',
  'src/rules/engine.ts': 'export const engine = 1;\n',
  'src/deliver/notifier.ts': 'export const notifier = 1;\n',
  'src/cli/main.ts': 'export const main = 1;\n',
  'src/tools/demo/run.ts': 'export const demo = 1;\n',
  'workers/poll.ts': 'export const poll = 1;\n',
  'test/helpers/redis.ts': 'export const redis = 1;\n',
  'bench/engine.ts': 'export const bench = 1;\n',
};

/** Imports every rule lets through. */
const ALLOWED: Record<string, string> = {
  'src/api/ok.ts': "import { format } from '../util/format.ts';\nexport const ok = format;\n",
  'src/rules/ok.ts': "import { createHash } from 'node:crypto';\nexport const ok = createHash;\n",
  'src/digest/ok.ts': "import { index } from '../api/index.ts';\nexport const ok = index;\n",
  'src/cli/ok.ts': "import { engine } from '../rules/engine.ts';\nexport const ok = engine;\n",
  'src/cli/demo.ts': "import { demo } from '../tools/demo/run.ts';\nexport const ok = demo;\n",
  'src/tools/ok.ts': "import { demo } from './demo/run.ts';\nexport const ok = demo;\n",
  'src/tools/probe/ok.ts': "import { tooling } from '../../api/tooling.ts';\nexport const ok = tooling;\n",
  'workers/ok.ts': "import { main } from '../src/cli/main.ts';\nexport const ok = main;\n",
};

/** One import that breaks each rule. */
const FORBIDDEN: Record<string, string> = {
  'src/util/a.ts': "import type { B } from './b.ts';\nexport type A = B | 1;\n",
  'src/util/b.ts': "import type { A } from './a.ts';\nexport type B = A | 2;\n",
  'src/api/leak.ts': "import type { Queue } from 'bullmq';\nexport type Leak = Queue;\n",
  'src/sim/leak.ts': "import { notifier } from '../deliver/notifier.ts';\nexport const leak = notifier;\n",
  'src/rules/io.ts': "import { readFileSync } from 'node:fs';\nexport const io = readFileSync;\n",
  'src/channels/judge.ts': "import { engine } from '../rules/engine.ts';\nexport const j = engine;\n",
  'src/poll/up.ts': "import { main } from '../cli/main.ts';\nexport const up = main;\n",
  'src/app/tool.ts': "import { demo } from '../tools/demo/run.ts';\nexport const tool = demo;\n",
  'workers/tool.ts': "import { demo } from '../src/tools/demo/run.ts';\nexport const tool = demo;\n",
  'src/poll/out.ts': "import { redis } from '../../test/helpers/redis.ts';\nexport const out = redis;\n",
  'src/digest/around.ts': "import { client } from '../api/client.ts';\nexport const around = client;\n",
  'src/poll/tooling.ts': "import { tooling } from '../api/tooling.ts';\nexport const t = tooling;\n",
  'src/ops/missing.ts': "import { gone } from './gone.ts';\nexport const missing = gone;\n",
};

/** Imports between folders that only the layer order forbids, and two it allows. */
const LAYERED: Record<string, string> = {
  'src/jobs/queues.ts': 'export const queues = 1;\n',
  'src/poll/processor.ts': 'export const processor = 1;\n',
  'src/model/alert.ts': 'export const alert = 1;\n',
  // Allowed by every other rule: a room reaching up to the jobs that run it, ops up to a room.
  'src/poll/up-to-jobs.ts': "import { queues } from '../jobs/queues.ts';\nexport const up = queues;\n",
  'src/ops/up-to-poll.ts':
    "import type { processor } from '../poll/processor.ts';\nexport type Up = typeof processor;\n",
  // Two folders on one line import neither way.
  'src/deliver/beside.ts':
    "import { processor } from '../poll/processor.ts';\nexport const beside = processor;\n",
  // A folder the layers do not list.
  'src/kinds/unlisted.ts': "import { alert } from '../model/alert.ts';\nexport const k = alert;\n",
  // Downward and within a folder: allowed.
  'src/jobs/down.ts': "import { processor } from '../poll/processor.ts';\nexport const d = processor;\n",
  'src/poll/within.ts': "import { processor } from './processor.ts';\nexport const w = processor;\n",
};

/**
 * One fixture tree holds the allowed, the forbidden and the layered imports, checked by one run
 * that the three tests below read: each run starts node and dependency-cruiser and parses the
 * tree's TypeScript (about 1.2 CPU-s), and no file of one set is the source or target of another's.
 */
let fixtureRun: Promise<CheckResult> | undefined;
function fixtureWalls(): Promise<CheckResult> {
  fixtureRun ??= checkWalls(fixtureTree({ ...TARGETS, ...ALLOWED, ...FORBIDDEN, ...LAYERED }));
  return fixtureRun;
}

describe('import walls (.dependency-cruiser.mjs)', () => {
  it('hold in src/ and workers/', async () => {
    const result = await checkWalls(ROOT);
    expect(result.output).toContain('no dependency violations found');
    expect(result.exitCode).toBe(0);
  }, 120_000);

  it('let allowed imports through', async () => {
    const result = await fixtureWalls();
    // The run cruised the tree and reported (the forbidden imports): none of these is among them.
    expect(result.output).toMatch(/\d+ modules, \d+ dependencies cruised/);
    for (const from of Object.keys(ALLOWED)) expect(result.output).not.toContain(from);
  }, 60_000);

  it('fail on each forbidden import, naming the rule', async () => {
    const result = await fixtureWalls();
    expect(result.exitCode).not.toBe(0);
    const expected: [rule: string, from: string][] = [
      ['no-cycle', 'src/util/a.ts'],
      ['api-sealed', 'src/api/leak.ts'],
      ['sim-sealed', 'src/sim/leak.ts'],
      ['rules-pure', 'src/rules/io.ts'],
      ['channels-know-no-rules', 'src/channels/judge.ts'],
      ['no-import-of-cli', 'src/poll/up.ts'],
      ['tools-outside-product', 'src/app/tool.ts'],
      ['tools-outside-product', 'workers/tool.ts'],
      ['no-import-of-outer-folders', 'src/poll/out.ts'],
      ['api-through-index', 'src/digest/around.ts'],
      ['api-tooling-for-tools', 'src/poll/tooling.ts'],
      ['resolvable', 'src/ops/missing.ts'],
    ];
    for (const [rule, from] of expected) expect(result.output).toContain(`error ${rule}: ${from}`);
  }, 60_000);

  it('hold the layers docs/development.md lists, line for line', async () => {
    const { LAYERS } = (await import(CONFIG)) as { LAYERS: string[][] };
    const doc = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
    const lines = [...doc.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((m) => [
      Number(m[1]),
      [...(m[2] ?? '').matchAll(/`([a-z-]+)\/`/g)].map((f) => f[1]),
    ]);
    expect(lines).toEqual(LAYERS.map((folders, i) => [i + 1, folders]));
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(folders.map((e) => e.name).sort()).toEqual(LAYERS.flat().sort());
  });

  it('hold the layer order between folders, naming the rule and the file', async () => {
    const result = await fixtureWalls();
    expect(result.exitCode).not.toBe(0);
    const expected: [rule: string, from: string][] = [
      ['layer-order', 'src/poll/up-to-jobs.ts → src/jobs/queues.ts'],
      ['layer-order', 'src/ops/up-to-poll.ts → src/poll/processor.ts'],
      ['layer-order', 'src/deliver/beside.ts → src/poll/processor.ts'],
      ['layer-listed', 'src/kinds/unlisted.ts → src/model/alert.ts'],
    ];
    for (const [rule, from] of expected) expect(result.output).toContain(`error ${rule}: ${from}`);
    expect(result.output).not.toContain('src/jobs/down.ts');
    expect(result.output).not.toContain('src/poll/within.ts');
  }, 60_000);
});
