import type { Command } from 'commander';
import {
  type AnalyticsClient,
  ForbiddenError,
  type KeywordSearchResult,
  MARKETPLACES,
  type Marketplace,
} from '../api/index.ts';
import { Runtime } from '../app/runtime.ts';
import { BudgetExhaustedError } from '../budget/request-budget.ts';
import { suggest } from '../config-kit/suggest.ts';
import { silentLogger } from '../ops/logger.ts';
import { summaryOf } from './commands.ts';
import { CliError, parseIntegerFlag, usageError } from './errors.ts';
import { formatTable, groupDigits, plural, printJson } from './format.ts';
import type { CliIo } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';
import { pickWorkspace } from './workspace-flag.ts';

interface KeywordFlags {
  workspace?: string;
  marketplace: string;
  limit: string;
  json?: boolean;
  config?: string;
}

/** Each page of 100 is one request from the month's budget: 500 results cost 5. */
const MAX_RESULTS = 500;
const PAGE_SIZE = 100;

const EXAMPLES = `
Examples:
  $ shelfwatch keywords "cozy mystery"
  $ shelfwatch keywords "space opera" --marketplace UK --limit 50
  $ shelfwatch keywords romance --workspace acme --json

Every page of up to ${PAGE_SIZE} results is one request from the workspace's budget (the reserve
may be used). When the minute's limit is full the command waits for the next window.`;

export interface KeywordSearch {
  query: string;
  marketplace: Marketplace;
  /** Highest search volume first. */
  results: KeywordSearchResult[];
  requests: number;
}

/** Reads pages until `limit` results are in or the list ends, then sorts by search volume. */
export async function searchKeywords(
  client: AnalyticsClient,
  query: string,
  marketplace: Marketplace,
  limit: number,
): Promise<KeywordSearch> {
  const results: KeywordSearchResult[] = [];
  let requests = 0;
  for await (const page of client.searchKeywords({
    q: query,
    marketplace,
    limit: Math.min(limit, PAGE_SIZE),
  })) {
    requests += page.meta.attempts;
    results.push(...page.items);
    if (results.length >= limit) break;
  }
  const byName = (a: KeywordSearchResult, b: KeywordSearchResult) =>
    a.keyword < b.keyword ? -1 : a.keyword > b.keyword ? 1 : 0;
  results.sort((a, b) => b.search_volume - a.search_volume || byName(a, b));
  return { query, marketplace, results: results.slice(0, limit), requests };
}

export function formatKeywordSearch(search: KeywordSearch, workspace: string): string {
  const rows = search.results.map((r) => [
    r.keyword,
    groupDigits(r.search_volume),
    r.competition.toFixed(2),
    r.intent_score.toFixed(2),
  ]);
  const head = `${search.results.length} keywords for "${search.query}" in ${search.marketplace}, by search volume (workspace ${workspace}, ${plural(search.requests, 'request')})`;
  const table = formatTable(['keyword', 'search volume', 'competition', 'intent'], rows, [
    'left',
    'right',
    'right',
    'right',
  ]);
  return `${head}\n\n${search.results.length === 0 ? '(no results)' : table}\n`;
}

function parseMarketplace(raw: string): Marketplace {
  const upper = raw.trim().toUpperCase();
  const found = MARKETPLACES.find((mp) => mp === upper);
  if (found === undefined) {
    const close = suggest(upper, MARKETPLACES);
    const hint = close === undefined ? '' : ` (did you mean ${close}?)`;
    throw usageError(`--marketplace expects one of ${MARKETPLACES.join(', ')}, got "${raw}"${hint}`);
  }
  return found;
}

function checkQuery(query: string): string {
  const q = query.trim();
  if (q === '' || q.length > 200) throw usageError('QUERY expects 1 to 200 characters');
  return q;
}

function explain(error: unknown, workspace: string): never {
  if (error instanceof ForbiddenError) {
    throw new CliError(
      `keyword search is not enabled for workspace "${workspace}"'s plan: ${error.message}`,
      {
        cause: error,
      },
    );
  }
  if (error instanceof BudgetExhaustedError) throw new CliError(error.message, { cause: error });
  throw error;
}

export function registerKeywordsCommand(program: Command, io: CliIo): void {
  program
    .command('keywords')
    .description(summaryOf('keywords'))
    .argument('<query>', 'what to search for (1 to 200 characters)')
    .option(
      '-w, --workspace <id>',
      'the workspace whose API key searches (needed when the config has several)',
    )
    .option('-m, --marketplace <mp>', `one of ${MARKETPLACES.join(', ')}`, 'US')
    .option('-n, --limit <n>', `results to show, 1 to ${MAX_RESULTS}`, '20')
    .option('--json', 'print the results as JSON')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .addHelpText('after', EXAMPLES)
    .action(async (query: string, flags: KeywordFlags) => {
      const q = checkQuery(query);
      const marketplace = parseMarketplace(flags.marketplace);
      const limit = parseIntegerFlag('--limit', flags.limit, 1, MAX_RESULTS);
      const config = loadConfigOrThrow(io, flags.config);
      const ws = pickWorkspace(config, flags.workspace);
      const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
      await connectRuntime(runtime);
      try {
        const search = await searchKeywords(runtime.interactiveClient(ws.id), q, marketplace, limit).catch(
          (error: unknown) => explain(error, ws.id),
        );
        if (flags.json === true) printJson({ workspace: ws.id, ...search }, io.stdout);
        else io.stdout.write(formatKeywordSearch(search, ws.id));
      } finally {
        await runtime.close();
      }
    });
}
