import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { stringify as yamlText } from 'yaml';
import { parseContract } from '../api/contract/load.ts';
import { type RecordedAnswer, valueAt } from '../api/contract/probe-analyse.ts';
import { writeRecording } from '../api/contract/probe-record.ts';
import { PROBED_ENDPOINTS, ProbeError, probeService } from '../api/contract/probe-run.ts';
import type { ContractFile } from '../api/contract/schema.ts';
import { suggestContract } from '../api/contract/suggest-contract.ts';
import { type CompiledContract, defaultContract } from '../api/index.ts';
import { formatPlanTable } from '../budget/planner.ts';
import { targetsOfWorkspace } from '../poll/registry.ts';
import { planWorkspace } from '../poll/schedule.ts';
import { CliError, usageError } from './errors.ts';
import { plural } from './format.ts';
import { loadConfigOrThrow } from './load-config.ts';
import { reportProbe } from './probe.ts';
import { summarize } from './validate.ts';

interface InitFlags {
  baseUrl?: string;
  keyEnv: string;
  out: string;
  plan: string;
  force?: boolean;
}

export interface Account {
  /** ASIN → the marketplaces it is ranked in. */
  books: Map<string, Set<string>>;
  campaigns: string[];
}

/** The account's books (from the rankings, which list the caller's ASINs) and ARC campaigns (from the reviews). */
export function discoverAccount(contract: CompiledContract, answers: readonly RecordedAnswer[]): Account {
  const books = new Map<string, Set<string>>();
  const campaigns = new Set<string>();
  for (const answer of answers.filter((a) => a.status < 400)) {
    if (answer.endpoint === 'rankings') {
      const read = contract.rankings(answer.body);
      for (const series of read.ok ? read.data : []) {
        const markets = books.get(series.asin) ?? new Set<string>();
        markets.add(series.marketplace);
        books.set(series.asin, markets);
      }
    }
    if (answer.endpoint === 'reviews') {
      const read = contract.reviews(answer.body);
      for (const review of read.ok ? read.data : []) campaigns.add(review.campaign_id);
    }
  }
  return { books, campaigns: [...campaigns].sort() };
}

/**
 * When the contract cannot read the lists yet (edits probe could not decide): every ASIN-shaped
 * string of the rankings answer (marketplaces left to the config's default), and the campaign ids
 * at the path the suggestion found for `reviews.campaignId`.
 */
export function discoverLoosely(answers: readonly RecordedAnswer[], suggested: ContractFile): Account {
  const books = new Map<string, Set<string>>();
  const campaigns = new Set<string>();
  const rankings = answers.find((a) => a.endpoint === 'rankings' && a.status < 400);
  const text = JSON.stringify(rankings?.body ?? null);
  for (const match of text.matchAll(/"(B0[0-9A-Z]{8})"/g))
    if (match[1] !== undefined) books.set(match[1], new Set());
  const reviews = answers.find((a) => a.endpoint === 'reviews' && a.status < 400);
  const spec = suggested.endpoints?.reviews;
  const field = spec?.fields?.campaignId;
  const path = typeof field === 'string' ? field : field?.path;
  const list = valueAt(reviews?.body, spec?.items ?? 'data');
  if (path !== undefined && Array.isArray(list))
    for (const item of list) {
      const id = valueAt(item, path);
      if (typeof id === 'string') campaigns.add(id);
    }
  return { books, campaigns: [...campaigns].sort() };
}

async function askBaseUrl(): Promise<string> {
  if (!process.stdin.isTTY)
    throw usageError('--base-url is needed (or PUBLISHING_API_BASE_URL) when nobody can be asked');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question('Base URL of the Publishing Analytics API: ')).trim();
  } finally {
    rl.close();
  }
}

export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description("probe the API, discover the account's books and ARC campaigns, and write a starting config")
    .option('--base-url <url>', 'the API base URL (default: PUBLISHING_API_BASE_URL, else asked)')
    .option('--key-env <name>', 'the environment variable holding the API key', 'PUBLISHING_API_KEY')
    .option('--out <file>', 'the config to write', 'shelfwatch.yaml')
    .option('--plan <plan>', 'the API plan: studio, publisher or custom:PER_MINUTE:PER_MONTH', 'studio')
    .option('--force', 'overwrite an existing config')
    .action(async (flags: InitFlags) => {
      const file = resolve(flags.out);
      if (existsSync(file) && flags.force !== true)
        throw usageError(`${file} exists: init never overwrites a config without --force`);
      const apiKey = process.env[flags.keyEnv];
      if (apiKey === undefined || apiKey === '') throw usageError(`set ${flags.keyEnv} to the API key first`);
      const baseUrl = flags.baseUrl ?? process.env.PUBLISHING_API_BASE_URL ?? (await askBaseUrl());
      if (!/^https?:\/\//.test(baseUrl))
        throw usageError(`the base URL must start with https:// (got "${baseUrl}")`);
      const dir = dirname(file);
      // No config yet, so no budget in Redis to take from: the count is said first, and it is all.
      process.stdout.write(`init: at most ${plural(PROBED_ENDPOINTS.length, 'request')} to ${baseUrl}\n`);
      let answers: RecordedAnswer[];
      try {
        answers = await probeService({
          baseUrl,
          apiKey,
          contract: defaultContract(),
          endpoints: PROBED_ENDPOINTS,
          now: Date.now(),
          beforeRequest: async () => {},
        });
      } catch (error) {
        if (error instanceof ProbeError) throw new CliError(`init: ${error.message}`, { cause: error });
        throw error;
      }
      const answersDir = join(dir, 'probe-answers');
      writeRecording(answersDir, answers, [apiKey]);
      const contractFile = join(dir, 'publishing-api.yaml');
      const fits = reportProbe(defaultContract(), answers, contractFile);
      const suggestion = suggestContract(defaultContract(), answers);
      const load = parseContract(suggestion.contract, contractFile);
      const contract = fits || !load.ok ? defaultContract() : load.contract;
      let account = discoverAccount(contract, answers);
      if (account.books.size === 0 && account.campaigns.length === 0)
        account = discoverLoosely(answers, suggestion.contract);
      const workspace = {
        id: 'main',
        baseUrl,
        apiKey: `\${${flags.keyEnv}}`,
        plan: flags.plan,
        ...(fits ? {} : { api: { contract: `./${relative(dir, contractFile)}` } }),
        books: [...account.books].map(([asin, markets]) =>
          markets.size === 0 ? { asin } : { asin, marketplaces: [...markets].sort() },
        ),
        campaigns: account.campaigns.map((id) => ({ id })),
      };
      const header = `# Written by shelfwatch init from ${answers.length} answers of ${baseUrl} (saved in ./probe-answers).\n`;
      writeFileSync(file, `${header}${yamlText({ workspaces: [workspace] })}`);
      process.stdout.write(
        `\nWrote ${file}: ${plural(workspace.books.length, 'book')}, ${plural(workspace.campaigns.length, 'ARC campaign')}${fits ? '' : `, api.contract ${contractFile} (edit what it could not decide)`}\n`,
      );
      const config = loadConfigOrThrow({ env: process.env, configPath: file });
      process.stdout.write(`validate: config OK: ${summarize(config)}\n`);
      for (const ws of config.workspaces) {
        const plan = planWorkspace(ws, targetsOfWorkspace(ws), new Map(), 0, Date.now());
        process.stdout.write(`plan (offline) for workspace ${ws.id}:\n${formatPlanTable(plan)}\n`);
      }
    });
}
