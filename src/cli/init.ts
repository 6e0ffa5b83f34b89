import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { stringify as yamlText } from 'yaml';
import {
  type CompiledContract,
  defaultContract,
  formatContractProblems,
  loadContractFile,
  parseContract,
} from '../api/index.ts';
import { targetsOfWorkspace } from '../poll/registry.ts';
import { planWorkspace } from '../poll/schedule.ts';
import {
  DEFAULT_MAX_PROBE_REQUESTS,
  PROBED_ENDPOINTS,
  ProbeError,
  plannedRequests,
  probeService,
  type RecordedAnswer,
  suggestContract,
  writeRecording,
} from '../tools/probe/index.ts';
import { checkKeyUrl } from '../util/key-url.ts';
import { summaryOf } from './commands.ts';
import { CliError, parseIntegerFlag, usageError } from './errors.ts';
import { plural } from './format.ts';
import { readAccount, reportLists } from './init-account.ts';
import type { CliIo } from './io.ts';
import { loadConfigOrThrow } from './load-config.ts';
import { formatPlanTable } from './plan-table.ts';
import { reportProbe } from './probe.ts';
import { summarize } from './validate.ts';
import { VERSION } from './version.ts';

interface InitFlags {
  baseUrl?: string;
  keyEnv: string;
  out: string;
  plan: string;
  force?: boolean;
  contract?: string;
  maxRequests?: string;
}

/** `--contract FILE`: a contract the user already has (edited from a suggestion); broken: exit 2. */
function givenContract(file: string | undefined): { file: string; contract: CompiledContract } | undefined {
  if (file === undefined) return undefined;
  const load = loadContractFile(file);
  if (!load.ok) throw usageError(`--contract: ${formatContractProblems(load)}`);
  return { file: resolve(file), contract: load.contract };
}

/** The config's `api.contract`: relative to the config's folder, as the config loader reads it. */
function relativeTo(dir: string, file: string): string {
  const path = relative(dir, file);
  return path.startsWith('..') ? path : `./${path}`;
}

/** Asked on the terminal (the process's own: only a person at one can answer). */
async function askBaseUrl(io: CliIo): Promise<string> {
  if (!io.stdinIsTTY)
    throw usageError('--base-url is needed (or PUBLISHING_API_BASE_URL) when nobody can be asked');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question('Base URL of the Publishing Analytics API: ')).trim();
  } finally {
    rl.close();
  }
}

export function registerInitCommand(program: Command, io: CliIo): void {
  program
    .command('init')
    .description(summaryOf('init'))
    .option('--base-url <url>', 'the API base URL (default: PUBLISHING_API_BASE_URL, else asked)')
    .option('--key-env <name>', 'the environment variable holding the API key', 'PUBLISHING_API_KEY')
    .option('--out <file>', 'the config to write', 'shelfwatch.yaml')
    .option('--plan <plan>', 'the API plan: studio, publisher or custom:PER_MINUTE:PER_MONTH', 'studio')
    .option('--force', 'overwrite an existing config')
    .option(
      '--contract <file>',
      'probe and read the lists through this contract file (one edited from a suggestion) and point the config at it, instead of suggesting one',
    )
    .option(
      '--max-requests <n>',
      `the most requests the probe may spend, parameter names tried again included (default ${DEFAULT_MAX_PROBE_REQUESTS})`,
    )
    .action(async (flags: InitFlags) => {
      const file = resolve(io.cwd, flags.out);
      if (existsSync(file) && flags.force !== true)
        throw usageError(`${file} exists: init never overwrites a config without --force`);
      // The suggested contract is a file the user edits: a second init must not put it back.
      const suggestedContract = join(dirname(file), 'publishing-api.yaml');
      if (flags.contract === undefined && existsSync(suggestedContract) && flags.force !== true)
        throw usageError(
          `${suggestedContract} exists: init never overwrites a contract without --force (or pass it with --contract)`,
        );
      const apiKey = io.env[flags.keyEnv];
      if (apiKey === undefined || apiKey === '') throw usageError(`set ${flags.keyEnv} to the API key first`);
      const baseUrl = flags.baseUrl ?? io.env.PUBLISHING_API_BASE_URL ?? (await askBaseUrl(io));
      // The one outbound-URL policy (util/key-url.ts): init writes no allowInsecure, so it sends none.
      const verdict = checkKeyUrl(baseUrl);
      if (!verdict.ok) throw usageError(`--base-url: ${verdict.message} (${verdict.hint})`);
      const dir = dirname(file);
      const given = givenContract(flags.contract);
      const checked = given?.contract ?? defaultContract();
      // No config yet, so no budget in Redis to take from: the probe's count is said first, and
      // every request the lists take after it is counted and said.
      const max =
        flags.maxRequests === undefined
          ? DEFAULT_MAX_PROBE_REQUESTS
          : parseIntegerFlag('--max-requests', flags.maxRequests, 1, 1000);
      io.stdout.write(
        `init: ${plural(plannedRequests(PROBED_ENDPOINTS, undefined, checked), 'request')} to probe ${baseUrl} if it takes every parameter as the contract names it, at most ${max} (--max-requests) with the names it refuses tried again and the last page of book keywords that come in pages; then the account's rankings and ARC reviews page by page where one page does not hold them (each request counted below)\n`,
      );
      let answers: RecordedAnswer[];
      const unchecked: string[] = [];
      let spent = 0;
      try {
        answers = await probeService({
          baseUrl,
          apiKey,
          contract: checked,
          endpoints: PROBED_ENDPOINTS,
          now: Date.now(),
          maxRequests: max,
          unchecked,
          beforeRequest: async () => {
            spent += 1;
          },
        });
      } catch (error) {
        if (error instanceof ProbeError) throw new CliError(`init: ${error.message}`, { cause: error });
        throw error;
      }
      const answersDir = join(dir, 'probe-answers');
      writeRecording(answersDir, answers, [apiKey]);
      // With a contract of the user's, the suggestion goes beside the answers: their file is theirs.
      const suggestFile =
        given === undefined ? join(dir, 'publishing-api.yaml') : join(answersDir, 'contract.suggested.yaml');
      if (unchecked.length > 0)
        io.stdout.write(`Not checked:\n${unchecked.map((line) => `  - ${line}`).join('\n')}\n`);
      const fits = reportProbe(checked, answers, suggestFile, io.stdout, given?.file);
      const suggestion = suggestContract(checked, answers);
      const load = parseContract(suggestion.contract, suggestFile);
      const contract = given?.contract ?? (fits || !load.ok ? defaultContract() : load.contract);
      const contractFile = given?.file ?? (fits ? undefined : suggestFile);
      const { account, lists } = await readAccount({
        baseUrl,
        apiKey,
        version: VERSION,
        contract,
        suggested: suggestion.contract,
        answers,
      });
      const listed = reportLists(lists);
      io.stdout.write(
        `\n${listed.text}init: ${plural(spent + listed.requests, 'request')} in all (${spent} to probe, ${listed.requests} for the lists)\n`,
      );
      const workspace = {
        id: 'main',
        baseUrl,
        apiKey: `\${${flags.keyEnv}}`,
        plan: flags.plan,
        ...(contractFile === undefined ? {} : { api: { contract: relativeTo(dir, contractFile) } }),
        books: [...account.books].map(([asin, markets]) =>
          markets.size === 0 ? { asin } : { asin, marketplaces: [...markets].sort() },
        ),
        campaigns: account.campaigns.map((id) => ({ id })),
      };
      const header = `# Written by shelfwatch init from ${plural(spent, 'request')} to probe ${baseUrl} (saved in ./probe-answers) and ${plural(listed.requests, 'more request')} for the rest of its lists.\n`;
      // REDIS_URL wins over the file whenever it is set (docs/configuration.md); the file says so too.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: "${REDIS_URL:-…}" is the config's interpolation, written into the file literally.
      const redis = { url: '${REDIS_URL:-redis://127.0.0.1:6379}' };
      writeFileSync(file, `${header}${yamlText({ redis, workspaces: [workspace] })}`);
      io.stdout.write(
        `\nWrote ${file}: ${plural(workspace.books.length, 'book')}, ${plural(workspace.campaigns.length, 'ARC campaign')}${contractFile === undefined ? '' : `, api.contract ${contractFile}${given === undefined ? ' (edit what it could not decide)' : ''}`}\n`,
      );
      const config = loadConfigOrThrow(io, file);
      io.stdout.write(`validate: config OK: ${summarize(config)}\n`);
      for (const ws of config.workspaces) {
        const plan = planWorkspace(ws, targetsOfWorkspace(ws), new Map(), 0, Date.now());
        io.stdout.write(`plan (offline) for workspace ${ws.id}:\n${formatPlanTable(plan)}\n`);
      }
    });
}
