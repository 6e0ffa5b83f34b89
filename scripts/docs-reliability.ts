/**
 * Copies the chaos runs' figures (.artifacts/chaos/figures-seed-N.md, written by `npm run
 * test:chaos`) into the generated block of docs/reliability.md: a table with a row per seed run
 * (each seed's latest run) and one run's full figures. The chaos run itself writes no tracked file.
 * Run: `npm run docs:reliability [-- --seed N]` (the full figures of seed N; without --seed, of the
 * latest run of any seed).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { figuresPath, writeFiguresDoc } from '../test/chaos/report.ts';
import { seedsTable } from '../test/chaos/seeds-table.ts';
import { ARTIFACTS_DIR, REPO_ROOT } from '../test/helpers/artifacts.ts';

/** Every one-Redis run's figures file, by seed (Cluster runs, `-shards-N`, are apart). */
function savedRuns(): { seed: number; path: string }[] {
  const dir = join(ARTIFACTS_DIR, 'chaos');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((name) => {
      const seed = /^figures-seed-(\d+)\.md$/.exec(name)?.[1];
      return seed === undefined ? [] : [{ seed: Number(seed), path: join(dir, name) }];
    })
    .sort((a, b) => a.seed - b.seed);
}

function main(): number {
  const { values } = parseArgs({ options: { seed: { type: 'string' } } });
  const runs = savedRuns();
  const latest = [...runs].sort((a, b) => statSync(b.path).mtimeMs - statSync(a.path).mtimeMs)[0]?.path;
  const source = values.seed === undefined ? latest : figuresPath(Number(values.seed));
  if (source === undefined || !existsSync(source)) {
    process.stderr.write(
      `docs:reliability: no chaos figures${values.seed === undefined ? '' : ` for seed ${values.seed}`} in .artifacts/chaos/: run \`CHAOS_SEED=N npm run test:chaos\` first\n`,
    );
    return 1;
  }
  const figures = readFileSync(source, 'utf8');
  const seeds = seedsTable(runs.map((run) => readFileSync(run.path, 'utf8')));
  const doc = join(REPO_ROOT, 'docs', 'reliability.md');
  if (!writeFiguresDoc(doc, figures, seeds)) {
    process.stderr.write('docs:reliability: docs/reliability.md has no chaos-figures block\n');
    return 1;
  }
  const verdict = figures.trimEnd().split('\n').at(-1) ?? '';
  process.stdout.write(
    `docs/reliability.md: seeds ${runs.map((r) => r.seed).join(', ')}; full figures from ${source.slice(REPO_ROOT.length + 1)} (${verdict})\n`,
  );
  return 0;
}

process.exitCode = main();
