import type { Command } from 'commander';
import { DemoError } from '../tools/demo/errors.ts';
import type { RedisChoice } from '../tools/demo/redis.ts';
import { runDemo } from '../tools/demo/run.ts';
import { summaryOf } from './commands.ts';
import { CliError, parseIntegerFlag, parseNumberFlag, usageError } from './errors.ts';
import type { CliIo } from './io.ts';
import { VERSION } from './version.ts';

interface DemoFlags {
  speed: string;
  seed: string;
  redis: string;
  keepRedisData?: boolean;
  out?: string;
  timeout: string;
}

const HELP = `
What it does (in well under a minute): starts the simulator of the Publishing Analytics API with a
fixed seed and a fast sim clock, local stand-ins for a Slack webhook and an SMTP server, and the
real poll and delivery workers; after their first (silent) polls it scripts a keyword rank drop, a
hostile review, a royalty revision and a removed best-seller rank, waits for the four alerts on
Slack and email, sends the daily digest, prints a summary and stops everything it started.

Redis (--redis auto): REDIS_URL if set, else a Redis answering on localhost:6379 (the demo's keys
live under a prefix of their own and are deleted at the end), else a private redis-server the demo
starts and stops. --redis private always starts one; --redis redis://HOST:PORT uses that server.

Examples:
  $ npx shelfwatch demo
  $ npx shelfwatch demo --speed 120 --seed 11 --out /tmp/shelfwatch-demo
  $ REDIS_URL=redis://127.0.0.1:6380 npx shelfwatch demo --keep-redis-data

Captured messages: <out>/slack/*.json, <out>/mail/*.eml (+ .html), <out>/digest.html; worker
logs: <out>/shelfwatch.log. Ctrl-C stops the demo and everything it started.`;

function redisChoice(raw: string): RedisChoice {
  if (raw === 'auto' || raw === 'private') return raw;
  if (/^rediss?:\/\//.test(raw)) return { url: raw };
  throw usageError(`--redis expects auto, private or a redis:// URL, got "${raw}"`);
}

/** `.shelfwatch/demo-2026-11-22T05-16-19`: sortable, and valid on every file system. */
function defaultOutDir(): string {
  return `.shelfwatch/demo-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}`;
}

/**
 * Runs the demo as the process's own tool (it is run as `shelfwatch demo`, never in process): its
 * exit code is the process's, and a stray handle does not keep it alive after the summary.
 */
async function demo(flags: DemoFlags, io: CliIo): Promise<void> {
  const options = {
    speed: parseNumberFlag('--speed', flags.speed, 1, 3600),
    seed: parseIntegerFlag('--seed', flags.seed, 0, 2 ** 31 - 1),
    redis: redisChoice(flags.redis),
    envRedisUrl: io.env.REDIS_URL,
    keepRedisData: flags.keepRedisData === true,
    outDir: flags.out ?? defaultOutDir(),
    deadlineMs: parseIntegerFlag('--timeout', flags.timeout, 5, 3600) * 1000,
    cwd: io.cwd,
    version: VERSION,
  };
  let code: number;
  try {
    code = await runDemo(options, {
      write: (text) => io.stdout.write(text),
      isTTY: io.stdout.isTTY === true,
      columns: () => io.stdout.columns ?? 100,
    });
  } catch (error) {
    if (error instanceof DemoError) throw new CliError(error.message, { cause: error });
    throw error;
  }
  process.exitCode = code;
  // Everything the demo started is closed by now; should a stray handle still hold the event
  // loop, leave anyway rather than hang after the summary (unref: never fires otherwise).
  setTimeout(() => process.exit(code), 3_000).unref();
}

export function registerDemoCommand(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description(summaryOf('demo'))
    .option('--speed <x>', 'sim-clock speed: 60 = a sim hour per real minute (1 to 3600)', '60')
    .option('--seed <n>', 'seed of the simulated world; the same seed tells the same story', '7')
    .option('--redis <auto|private|URL>', 'which Redis to use (see below)', 'auto')
    .option('--keep-redis-data', "leave the demo's keys in Redis (default: delete them at the end)")
    .option(
      '--out <dir>',
      'folder for the captured messages, the digest and the log (default: .shelfwatch/demo-<time>)',
    )
    .option('--timeout <seconds>', 'give up (exit 1) if the story is not done by then', '120')
    .addHelpText('after', HELP)
    .action(async (_options: unknown, command: Command) => {
      await demo(command.opts<DemoFlags>(), io);
    });
}
