/** The dialects the tests serve and read: contract files unlike the assumed contract in every category. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as yamlText } from 'yaml';
import { mergeContract } from '../../src/api/contract/merge.ts';
import type { ContractFile } from '../../src/api/contract/schema.ts';
import { type CompiledContract, defaultContract, loadContractFile } from '../../src/api/index.ts';
import type { SimDialect } from '../../src/sim/index.ts';
import {
  createSimDialect,
  PROBED_ENDPOINTS,
  probeService,
  type RecordedAnswer,
  type SimDialectOptions,
} from '../../src/tools/probe/index.ts';

export interface Dialect {
  name: string;
  /** The contract file; undefined for the default contract. */
  file: string | undefined;
  contract: CompiledContract;
  /** For startSimulator; undefined for the default contract. */
  sim: SimDialect | undefined;
  /** The top-level key of a keywords answer: dropping it breaks the answer (a drift fault). */
  keywordsEnvelope: string;
  /** A keyword's search volume: its name in an item, and where the first item's is in the answer. */
  searchVolume: { name: string; path: string };
}

function searchVolumeOf(contract: CompiledContract): Dialect['searchVolume'] {
  const keywords = contract.nodes.bookKeywords.fields.find((field) => field.name === 'keywords');
  const name = keywords?.items?.fields.find((field) => field.name === 'searchVolume')?.rawPath ?? '';
  const list = [contract.roots.bookKeywords, keywords?.rawPath].filter((part) => part !== '').join('.');
  return { name, path: `${list}[0].${name}` };
}

function envelopeOf(contract: CompiledContract): string {
  const keywords = contract.nodes.bookKeywords.fields.find((field) => field.name === 'keywords');
  return (contract.roots.bookKeywords || keywords?.rawPath || 'data').split('.')[0] ?? 'data';
}

/** How the simulator serves a dialect beyond its file: G reads only the first of repeated values, H sends -1 for today's money. */
const SIM_OPTIONS: Readonly<Record<string, SimDialectOptions>> = {
  'dialect-g': { repeatedValues: 'first' },
  // H: the day in progress has no figure yet (-1), which probe's sales window ends on.
  'dialect-h': { todayWithoutFigures: true },
};

export function dialect(name: string): Dialect {
  const file = fileURLToPath(new URL(`./dialects/${name}.yaml`, import.meta.url));
  const load = loadContractFile(file);
  if (!load.ok) throw new Error(`${file}: ${JSON.stringify(load.problems)}`);
  return {
    name,
    file,
    contract: load.contract,
    sim: createSimDialect(load.contract, SIM_OPTIONS[name]),
    keywordsEnvelope: envelopeOf(load.contract),
    searchVolume: searchVolumeOf(load.contract),
  };
}

export const DEFAULT_DIALECT: Dialect = {
  name: 'default',
  file: undefined,
  contract: defaultContract(),
  sim: undefined,
  keywordsEnvelope: 'data',
  searchVolume: searchVolumeOf(defaultContract()),
};

const dialectFile = (name: string) => fileURLToPath(new URL(`./dialects/${name}.yaml`, import.meta.url));
const yamlFile = (name: string) => parseYaml(readFileSync(dialectFile(name), 'utf8')) as ContractFile;

/** What `probe` suggested for dialect A with the edits it could not decide made: one file, as a user would keep it. */
export function probedContractFile(): string {
  const merged = mergeContract(yamlFile('dialect-a.probed'), yamlFile('dialect-a.probe-edits'));
  const file = join(mkdtempSync(join(tmpdir(), 'shelfwatch-probed-')), 'dialect-a.probed.yaml');
  writeFileSync(file, yamlText(merged));
  return file;
}

/** Dialect A's simulator read through the contract probe suggested (plus the undecided edits). */
function probedDialect(): Dialect {
  const served = dialect('dialect-a');
  const file = probedContractFile();
  const load = loadContractFile(file);
  if (!load.ok) throw new Error(`${file}: ${JSON.stringify(load.problems)}`);
  return {
    ...served,
    name: 'dialect-a-probed',
    file,
    contract: load.contract,
    keywordsEnvelope: envelopeOf(load.contract),
    searchVolume: searchVolumeOf(load.contract),
  };
}

/**
 * The default contract, the six shipped dialects (C and D are issue 26's: pages everywhere, per-endpoint
 * parameters, signals in the body, Keepa shapes; E is shaped like SP-API; F sends Keepa's money and
 * SP-API's per-second rate limit; G pages by a token sent alone, reads only the first of repeated values
 * and tells the month's 429 by a header) and dialect A read through what `probe` suggested, for tests
 * parameterised over all of them.
 */
export function allDialects(): Dialect[] {
  return [
    DEFAULT_DIALECT,
    dialect('dialect-a'),
    dialect('dialect-b'),
    dialect('dialect-c'),
    dialect('dialect-d'),
    dialect('dialect-e'),
    dialect('dialect-f'),
    dialect('dialect-g'),
    probedDialect(),
  ];
}

/**
 * probe of a test simulator through the assumed contract (or `contract`), every probed endpoint, as
 * `shelfwatch probe` would at `now`: its answers, the requests it spent and what it left unchecked.
 */
export async function probeCounting(options: {
  url: string;
  apiKey: string;
  now: string;
  maxRequests?: number;
  contract?: CompiledContract;
}): Promise<{ answers: RecordedAnswer[]; spent: number; unchecked: string[] }> {
  let spent = 0;
  const unchecked: string[] = [];
  const answers = await probeService({
    baseUrl: options.url,
    apiKey: options.apiKey,
    contract: options.contract ?? defaultContract(),
    endpoints: PROBED_ENDPOINTS,
    now: Date.parse(options.now),
    maxRequests: options.maxRequests ?? 30,
    unchecked,
    beforeRequest: async () => {
      spent += 1;
    },
  });
  return { answers, spent, unchecked };
}
