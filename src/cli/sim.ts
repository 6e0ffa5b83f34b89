import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import { formatContractProblems, loadContractFile } from '../api/index.ts';
import {
  DEMO_KEYS,
  describePlan,
  type FixedCatalogue,
  parsePlan,
  type RunningSimulator,
  SimConfigError,
  type SimFaultRates,
  type SimKeySpec,
  startSimulator,
} from '../sim/index.ts';
import { createSimDialect } from '../tools/probe/index.ts';
import { summaryOf } from './commands.ts';
import type { CliIo } from './io.ts';

type FixedBook = NonNullable<FixedCatalogue['books']>[number];

import type { ShelfwatchConfig } from '../config/schema.ts';
import { redact } from '../util/redact.ts';
import { CliError, parseIntegerFlag, parseNumberFlag, usageError } from './errors.ts';
import { loadConfigOrThrow } from './load-config.ts';
import { runRecordedReplay } from './sim-replay.ts';

interface SimFlags {
  port: string;
  host: string;
  seed: string;
  key?: string[];
  speed: string;
  startAt?: string;
  books: string;
  campaigns: string;
  adminToken?: string;
  errorRate?: string;
  htmlRate?: string;
  slowRate?: string;
  slowMs?: string;
  malformedRate?: string;
  config?: string;
  contract?: string;
  repeatedValues?: string;
  replay?: string;
}

/** `--contract FILE`: serve the world in that dialect; a broken file is a usage error (exit 2). */
function dialectFlag(file: string | undefined, repeated: string | undefined) {
  if (repeated !== undefined && repeated !== 'refuse' && repeated !== 'first')
    throw usageError(`--repeated-values expects refuse or first, got "${repeated}"`);
  if (file === undefined) {
    if (repeated !== undefined)
      throw usageError('--repeated-values needs --contract (a dialect that joins values with commas)');
    return {};
  }
  const load = loadContractFile(file);
  if (!load.ok) throw usageError(`--contract: ${formatContractProblems(load)}`);
  return {
    dialect: createSimDialect(load.contract, repeated === undefined ? {} : { repeatedValues: repeated }),
  };
}

const EXAMPLES = `
Keys:
  --key KEY:PLAN[@WORKSPACE]   PLAN is studio (60/min, 100000/month), publisher (300/min,
                               1000000/month) or custom:PER_MINUTE:PER_MONTH. Without @WORKSPACE the
                               workspace is "ws-" and 8 hex digits of the key's SHA-256, so logs never
                               show the key. Keys of one workspace share its limits. Without --key the
                               demo keys sk_demo_studio and sk_demo_publisher are accepted.

Examples:
  $ shelfwatch sim                                   demo keys on http://127.0.0.1:4010
  $ shelfwatch sim --port 0 --seed 7 --books 1000    a free port, a bigger seeded catalogue
  $ shelfwatch sim --key sk_live_abc:studio@acme --key sk_big:custom:1000:30
  $ shelfwatch sim --speed 720 --start-at 2026-11-01T00:00:00Z   a simulated month in an hour
  $ shelfwatch sim --error-rate 0.05 --slow-rate 0.02 --slow-ms 4000
  $ shelfwatch sim --config shelfwatch.yaml          serve that config's books, campaigns and keys

It lists what it serves: the account's books (ASIN, marketplaces, title) and the ARC campaigns.
With --config the config's books and campaign ids come first (the rest are generated up to
--books and --campaigns) and its workspaces' API keys are accepted with their plans; point the
workspaces' baseUrl at the simulator.

Control endpoint (same port, header X-Sim-Admin-Token): GET /_sim/world, POST /_sim/events,
POST|DELETE /_sim/faults, PUT /_sim/faults/rates, POST /_sim/keys, POST /_sim/keys/revoke,
POST /_sim/clock, GET|DELETE /_sim/requests.`;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `KEY:PLAN[@WORKSPACE]`; the plan may itself hold colons (custom:60:1000). */
export function parseKeyFlag(raw: string): SimKeySpec {
  const colon = raw.indexOf(':');
  const key = colon < 0 ? '' : raw.slice(0, colon);
  const rest = colon < 0 ? '' : raw.slice(colon + 1);
  const at = rest.lastIndexOf('@');
  const planText = at < 0 ? rest : rest.slice(0, at);
  const workspace =
    at < 0 ? `ws-${createHash('sha256').update(key).digest('hex').slice(0, 8)}` : rest.slice(at + 1);
  if (key === '' || /\s/.test(key) || planText === '' || workspace === '') {
    throw usageError(`--key expects KEY:PLAN or KEY:PLAN@WORKSPACE, e.g. sk_live_abc:studio, got "${raw}"`);
  }
  try {
    return { key, workspace, plan: parsePlan(planText) };
  } catch (error) {
    if (error instanceof SimConfigError) throw usageError(`--key: ${error.message}`);
    throw error;
  }
}

function rate(flag: string, raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : parseNumberFlag(flag, raw, 0, 1);
}

function faultRates(flags: SimFlags): SimFaultRates {
  const rates: SimFaultRates = {};
  const errorRate = rate('--error-rate', flags.errorRate);
  const htmlRate = rate('--html-rate', flags.htmlRate);
  const slowRate = rate('--slow-rate', flags.slowRate);
  const malformedRate = rate('--malformed-rate', flags.malformedRate);
  if (errorRate !== undefined) rates.errorRate = errorRate;
  if (htmlRate !== undefined) rates.htmlRate = htmlRate;
  if (slowRate !== undefined) rates.slowRate = slowRate;
  if (malformedRate !== undefined) rates.malformedRate = malformedRate;
  if (flags.slowMs !== undefined) rates.slowMs = parseIntegerFlag('--slow-ms', flags.slowMs, 0, 600_000);
  return rates;
}

/** The config's books, campaigns and keys, for the simulator to serve as given. */
function servedFromConfig(config: ShelfwatchConfig): { fixed: FixedCatalogue; keys: SimKeySpec[] } {
  const books = new Map<string, Set<string>>();
  const campaigns = new Set<string>();
  const keys: SimKeySpec[] = [];
  for (const ws of config.workspaces) {
    for (const book of ws.books) {
      const marketplaces = books.get(book.asin) ?? new Set<string>();
      for (const mp of book.marketplaces) marketplaces.add(mp);
      books.set(book.asin, marketplaces);
    }
    for (const campaign of ws.campaigns) campaigns.add(campaign.id);
    // Workspaces sharing a key share its limits in the simulator too: one spec per key.
    const key = ws.apiKey.reveal();
    if (keys.some((spec) => spec.key === key)) continue;
    const plan = parsePlan(`custom:${ws.plan.perMinute}:${ws.plan.perMonth}`);
    keys.push({ key, workspace: ws.id, plan });
  }
  const fixed: FixedCatalogue = {
    books: [...books].map(([asin, marketplaces]) => ({
      asin,
      // The config's marketplaces are the contract's, which the simulator's are too.
      marketplaces: [...marketplaces] as FixedBook['marketplaces'],
    })),
    campaigns: [...campaigns],
  };
  return { fixed, keys };
}

/** At most this many books are listed at start; GET /_sim/world has them all. */
const LISTED_BOOKS = 30;

function listCatalogue(sim: RunningSimulator, out: (line: string) => void): void {
  const { books, campaigns } = sim.catalogue;
  out(`books (ASIN, marketplaces, title):`);
  for (const book of books.slice(0, LISTED_BOOKS)) {
    out(`  ${book.asin}  ${book.marketplaces.join(',').padEnd(12)} ${book.title}`);
  }
  if (books.length > LISTED_BOOKS) out(`  … and ${books.length - LISTED_BOOKS} more (GET /_sim/world)`);
  out(campaigns.length === 0 ? 'ARC campaigns: none' : 'ARC campaigns:');
  // The campaign's book by its title first (a listed book's), its ASIN after it.
  const titles = new Map(books.map((book) => [book.asin, book.title]));
  for (const campaign of campaigns) {
    const title = titles.get(campaign.asin);
    out(
      `  ${campaign.campaignId}  book ${title === undefined ? campaign.asin : `“${title}” (${campaign.asin})`}`,
    );
  }
}

async function runSim(flags: SimFlags, io: CliIo): Promise<void> {
  if (flags.replay !== undefined) {
    const port = parseIntegerFlag('--port', flags.port, 0, 65_535);
    return runRecordedReplay(flags.replay, { host: flags.host, port }, io.untilStopped, io.stdout);
  }
  const userKeys = (flags.key ?? []).map(parseKeyFlag);
  const config = flags.config === undefined ? undefined : loadConfigOrThrow(io, flags.config);
  const served = config === undefined ? undefined : servedFromConfig(config);
  const ownKeys = [...(served?.keys ?? []), ...userKeys];
  // With --config, the simulator speaks the dialect the config's workspaces read (api.contract).
  const contractFile = flags.contract ?? config?.workspaces.find((ws) => ws.api !== undefined)?.api?.contract;
  const startAt = flags.startAt;
  if (startAt !== undefined && Number.isNaN(Date.parse(startAt))) {
    throw usageError(`--start-at expects an ISO timestamp like 2026-11-01T00:00:00Z, got "${startAt}"`);
  }
  const options = {
    host: flags.host,
    port: parseIntegerFlag('--port', flags.port, 0, 65_535),
    seed: parseIntegerFlag('--seed', flags.seed, 0, 2 ** 31 - 1),
    keys: [
      ...ownKeys,
      ...(userKeys.length > 0 ? [] : DEMO_KEYS.filter((demo) => !ownKeys.some((k) => k.key === demo.key))),
    ],
    speed: parseNumberFlag('--speed', flags.speed, 0, 1_000_000),
    books: parseIntegerFlag('--books', flags.books, 1, 100_000),
    campaigns: parseIntegerFlag('--campaigns', flags.campaigns, 0, 1000),
    faults: faultRates(flags),
    ...dialectFlag(contractFile, flags.repeatedValues),
    ...(startAt === undefined ? {} : { startAt }),
    ...(served === undefined ? {} : { fixed: served.fixed }),
    ...(flags.adminToken === undefined ? {} : { adminToken: flags.adminToken }),
  };
  let sim: RunningSimulator;
  try {
    sim = await startSimulator(options);
  } catch (error) {
    if (error instanceof SimConfigError) throw usageError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new CliError(`port ${options.port} is in use; choose another with --port`);
    throw new CliError(
      `the simulator could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const out = (line: string) => io.stdout.write(`${line}\n`);
  out(`shelfwatch simulator listening on ${sim.url}`);
  out(`admin token: ${sim.adminToken}  (header X-Sim-Admin-Token on ${sim.url}/_sim/...)`);
  out(
    `seed ${options.seed}, ${sim.catalogue.books.length} books, ${sim.catalogue.campaigns.length} ARC campaigns, speed ${options.speed}x, sim clock ${new Date(sim.clock.now()).toISOString()}`,
  );
  listCatalogue(sim, out);
  if (contractFile !== undefined) out(`answers in the dialect of ${contractFile}`);
  out(userKeys.length > 0 ? 'keys:' : 'keys (the demo keys too; pass --key to use your own):');
  for (const spec of options.keys) {
    // Only the demo keys are shown whole: a real key is not for the terminal's scrollback.
    const shown = DEMO_KEYS.includes(spec) ? spec.key : redact(spec.key, [spec.key]);
    out(`  ${shown.padEnd(20)} workspace ${spec.workspace.padEnd(16)} ${describePlan(spec.plan)}`);
  }
  for (const ws of config?.workspaces ?? []) {
    if (ws.baseUrl.replace(/\/$/, '') !== sim.url)
      out(`note: workspace ${ws.id} has baseUrl ${ws.baseUrl}; the simulator is ${sim.url}`);
  }
  // Listening for the signal before saying so: a supervisor that reacts to the line at once must
  // find the handler in place, or its SIGTERM kills the process without closing the server.
  const stopped = io.untilStopped();
  out('Ctrl+C stops it.');
  const signal = await stopped;
  await sim.close();
  out(`simulator stopped (${signal})`);
}

export function registerSimCommand(program: Command, io: CliIo): void {
  program
    .command('sim')
    .description(summaryOf('sim'))
    .option('--port <n>', 'port to listen on; 0 picks a free one', '4010')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--seed <n>', 'seed of the synthetic world; the same seed gives the same world', '1')
    .option('--key <KEY:PLAN[@WORKSPACE]>', 'accept this API key (repeatable); see Keys below', collect)
    .option(
      '--speed <x>',
      'sim-clock speed: 60 = an hour a minute; 0 = frozen (advance via /_sim/clock)',
      '1',
    )
    .option('--start-at <timestamp>', 'sim-clock start, e.g. 2026-11-01T00:00:00Z (default: now)')
    .option('--books <n>', 'books in the account catalogue', '12')
    .option('--campaigns <n>', 'ARC campaigns', '2')
    .option('--admin-token <token>', 'token of the /_sim/ control endpoint (default: random)')
    .option('--error-rate <p>', 'share of requests answered 500/503 JSON errors (0..1)')
    .option('--html-rate <p>', 'share answered 502/503/504 HTML pages, like a proxy (0..1)')
    .option('--slow-rate <p>', 'share answered late (0..1)')
    .option('--slow-ms <n>', 'delay of a slow answer in ms (default 1500)')
    .option('--malformed-rate <p>', 'share answered with truncated JSON (0..1)')
    .option('-c, --config <file>', "serve this config's books, campaigns and API keys (- for stdin)")
    .option(
      '--contract <file>',
      "serve the world through this contract file (a dialect; docs/real-api.md); default with --config: its workspaces' api.contract",
    )
    .option(
      '--repeated-values <how>',
      'with --contract: a parameter the file joins with commas, sent repeated, is refused with a 400 (refuse, the default) or read for its first value only (first), as some APIs do',
    )
    .option(
      '--replay <dir>',
      'serve the answers recorded in this folder (shelfwatch probe writes one) instead of a world',
    )
    .addHelpText('after', EXAMPLES)
    .action(async (_options: unknown, command: Command) => {
      await runSim(command.opts<SimFlags>(), io);
    });
}
