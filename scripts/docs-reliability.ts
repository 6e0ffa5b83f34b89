/**
 * Copies a chaos run's figures (.artifacts/chaos/figures-seed-N.md, written by `npm run test:chaos`)
 * into the generated block of docs/reliability.md. The chaos run itself writes no tracked file.
 * Run: `npm run docs:reliability [-- --seed N]` (without --seed: the latest run of any seed).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { figuresPath, writeFiguresDoc } from '../test/chaos/report.ts';
import { ARTIFACTS_DIR, REPO_ROOT } from '../test/helpers/artifacts.ts';

function latestFigures(): string | undefined {
  const dir = join(ARTIFACTS_DIR, 'chaos');
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((name) => /^figures-seed-\d+\.md$/.test(name))
    .map((name) => join(dir, name));
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

function main(): number {
  const { values } = parseArgs({ options: { seed: { type: 'string' } } });
  const source = values.seed === undefined ? latestFigures() : figuresPath(Number(values.seed));
  if (source === undefined || !existsSync(source)) {
    process.stderr.write(
      `docs:reliability: no chaos figures${values.seed === undefined ? '' : ` for seed ${values.seed}`} in .artifacts/chaos/: run \`CHAOS_SEED=N npm run test:chaos\` first\n`,
    );
    return 1;
  }
  const figures = readFileSync(source, 'utf8');
  const doc = join(REPO_ROOT, 'docs', 'reliability.md');
  if (!writeFiguresDoc(doc, figures)) {
    process.stderr.write('docs:reliability: docs/reliability.md has no chaos-figures block\n');
    return 1;
  }
  const verdict = figures.trimEnd().split('\n').at(-1) ?? '';
  process.stdout.write(
    `docs/reliability.md: figures from ${source.slice(REPO_ROOT.length + 1)} (${verdict})\n`,
  );
  return 0;
}

process.exitCode = main();
