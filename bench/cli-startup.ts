/**
 * CLI start-up: the wall time from spawning `shelfwatch --version` and `shelfwatch validate
 * --config examples/shelfwatch.yaml` to their exit, side by side with `node -e 0` (the floor: a
 * bare node start) in alternating rounds, reported as the median over rounds of each one's ratio to
 * the floor of its round. Goal: `--version` at most 3× the floor. A command that exits with another
 * code than 0 fails the benchmark.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { fmt, table, times } from './lib/format.ts';
import { alternate, median, medianRatio, spread } from './lib/stats.ts';

export interface Start {
  wallMs: number;
  /** CPU (user + system) of the node process, from its parent shell's children times; 10 ms ticks. */
  cpuMs: number;
}

/** Clock ticks a second of /proc's times (USER_HZ: 100 on Linux). */
const TICK_MS = 10;

/**
 * One start, through `sh`, which reaps node and then prints its own /proc stat: the children's
 * user and system times there are node's CPU, a figure the machine's load does not inflate as it
 * does the wall time. Throws unless node exits 0.
 */
function timed(args: readonly string[], cwd: string, env: Record<string, string>): Promise<Start> {
  const start = performance.now();
  const script = '"$@" >/dev/null; code=$?; cat /proc/$$/stat; exit $code';
  const child = spawn('/bin/sh', ['-c', script, 'sh', process.execPath, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - start;
      if (code !== 0) {
        reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`));
        return;
      }
      // Fields after the command name (which is in parentheses): cutime and cstime are 14th and 15th.
      const fields = stdout
        .slice(stdout.lastIndexOf(')') + 2)
        .trim()
        .split(' ');
      const cpuMs = (Number(fields[13]) + Number(fields[14])) * TICK_MS;
      resolve({ wallMs, cpuMs });
    });
  });
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const rounds = ctx.quick ? 5 : 15;
  const bin = join(ctx.root, 'bin', 'shelfwatch.mjs');
  const config = join(ctx.root, 'examples', 'shelfwatch.yaml');
  // What the example config reads besides defaults: a key; nothing of the host leaks in.
  const env = { PATH: process.env.PATH ?? '', PUBLISHING_API_KEY: 'sk_bench_startup' };
  const commands = {
    floor: ['-e', '0'],
    version: [bin, '--version'],
    validate: [bin, 'validate', '--config', config],
  };
  // One untimed start of each: the file system cache and tsx's transform cache are warm after it.
  for (const args of Object.values(commands)) await timed(args, ctx.root, env);
  const cpu: Record<string, number[]> = { floor: [], version: [], validate: [] };
  const result = await alternate(
    Object.fromEntries(
      Object.entries(commands).map(([name, args]) => [
        name,
        async () => {
          const start = await timed(args, ctx.root, env);
          cpu[name]!.push(start.cpuMs);
          return start.wallMs;
        },
      ]),
    ),
    rounds,
  );
  const floor = result.samples.floor!;
  const ratioOf = (name: string) => medianRatio(result.samples[name]!, floor);
  const cpuRatioOf = (name: string) => median(cpu[name]!) / median(cpu.floor!);
  const row = (name: string, key: string) => [
    name,
    fmt(median(result.samples[key]!)),
    times(ratioOf(key)),
    `${fmt(spread(result.samples[key]!) * 100)}%`,
    fmt(median(cpu[key]!)),
    times(cpuRatioOf(key)),
  ];
  const details = [
    `${rounds} alternating rounds after one untimed start of each. Wall: spawn to exit, each round's ratio to that round's floor, median of rounds. CPU: node's user + system time (10 ms ticks), median of rounds, against the floor's median.`,
    '',
    table(
      ['command', 'wall ms (median)', 'wall × floor', 'round spread', 'CPU ms (median)', 'CPU × floor'],
      [
        row('floor: node -e 0', 'floor'),
        row('shelfwatch --version', 'version'),
        row('shelfwatch validate --config examples/shelfwatch.yaml', 'validate'),
      ],
    ),
  ].join('\n');
  const versionRatio = ratioOf('version');
  return {
    title: 'CLI start-up: `--version` and `validate` against a bare node',
    summary: [
      {
        metric: 'shelfwatch --version (wall)',
        value: `${fmt(median(result.samples.version!))} ms`,
        reference: `node -e 0 ${fmt(median(floor))} ms`,
        ratio: times(versionRatio),
        goal: '≤ 3×',
        met: versionRatio <= 3,
      },
      {
        metric: 'shelfwatch --version (CPU)',
        value: `${fmt(median(cpu.version!))} ms`,
        reference: `node -e 0 ${fmt(median(cpu.floor!))} ms`,
        ratio: times(cpuRatioOf('version')),
      },
      {
        metric: 'shelfwatch validate, example config (wall)',
        value: `${fmt(median(result.samples.validate!))} ms`,
        reference: `node -e 0 ${fmt(median(floor))} ms`,
        ratio: times(ratioOf('validate')),
      },
      {
        metric: 'shelfwatch validate, example config (CPU)',
        value: `${fmt(median(cpu.validate!))} ms`,
        reference: `node -e 0 ${fmt(median(cpu.floor!))} ms`,
        ratio: times(cpuRatioOf('validate')),
      },
    ],
    details,
    data: { rounds, ...result, cpu },
  };
}
