import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { stringify as yamlText } from 'yaml';
import {
  type CompiledContract,
  defaultContract,
  formatContractProblems,
  isListEndpoint,
  loadContractFile,
} from '../api/index.ts';
import { Runtime } from '../app/runtime.ts';
import { acquireOne, BudgetExhaustedError } from '../budget/request-budget.ts';
import { workspaceContract } from '../config/contract.ts';
import type { WorkspaceConfig } from '../config/schema.ts';
import { silentLogger } from '../ops/logger.ts';
import {
  analyseAnswer,
  DEFAULT_MAX_PROBE_REQUESTS,
  type EndpointAnalysis,
  lineDiff,
  PROBED_ENDPOINTS,
  type ProbedEndpoint,
  ProbeError,
  parseEndpoints,
  plannedEndpoints,
  plannedRequests,
  probeService,
  type RecordedAnswer,
  RecordingError,
  readRecording,
  suggestContract,
  writeRecording,
} from '../tools/probe/index.ts';
import { summaryOf } from './commands.ts';
import { CliError, parseIntegerFlag, usageError } from './errors.ts';
import { formatTable, plural } from './format.ts';
import type { CliIo, CliOutput } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';
import { pickWorkspace } from './workspace-flag.ts';

/** `probe`'s exit status when the answers do not fit the contract (as `plan`'s when a plan does not fit). */
export const EXIT_CONTRACT_DOES_NOT_FIT = 3;

interface ProbeFlags {
  config?: string;
  workspace?: string;
  contract?: string;
  endpoint?: string[];
  asin?: string;
  out: string;
  offline?: string;
  suggest?: string;
  maxRequests?: string;
}

const EXAMPLES = `
Examples:
  $ shelfwatch probe                          every read endpoint once, answers under ./probe-answers
  $ shelfwatch probe --endpoint book --asin B0EXAMPLE1
  $ shelfwatch probe --offline ./probe-answers --contract ./publishing-api.yaml

Online it asks each endpoint once (the rankings and reviews twice: the second time with a book's
time window and one campaign), from the workspace's budget (the interactive reserve may be used); a
parameter the API refuses by name (a 400 naming it) is asked again under the next likely name or
time format, and one it says is required is added. It says how many requests first and never
spends more than --max-requests (default ${DEFAULT_MAX_PROBE_REQUESTS}); what the cap leaves unchecked is listed. Answers are saved with the key, credentials and
email addresses taken out. It prints, per endpoint, each logical field found / missing / wrong type,
where it looked and what it found, and candidate paths elsewhere in the answer; it writes a
suggested contract file and lists what it could not decide. Exit 0: the contract fits; 3: it
does not (see the suggestion); 1: the service could not be probed; 2: bad input.`;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The user's own contract file, if any: the suggestion is shown against it as a diff. */
function contractFileOf(file: string | undefined, ws: WorkspaceConfig | undefined): string | undefined {
  if (file !== undefined) return file;
  return ws?.api === undefined ? undefined : resolve(ws.api.contract);
}

function contractFrom(file: string | undefined, ws: WorkspaceConfig | undefined): CompiledContract {
  if (file !== undefined) {
    const load = loadContractFile(file);
    if (!load.ok) throw usageError(`--contract: ${formatContractProblems(load)}`);
    return load.contract;
  }
  return ws === undefined ? defaultContract() : workspaceContract(ws);
}

export function formatAnalysis(analysis: EndpointAnalysis): string {
  const head = `${analysis.endpoint} (status ${analysis.status}): ${analysis.fits ? 'fits' : 'differs'}`;
  if (!analysis.container.ok)
    return `${head}\n  no ${isListEndpoint(analysis.endpoint) ? 'list' : 'object'} at ${analysis.container.path}: found ${analysis.container.found}\n`;
  if (analysis.rows.length === 0) return `${head}\n  (an empty list: no item to check)\n`;
  const rows = analysis.rows.map((r) => [
    r.field,
    r.status,
    r.path,
    r.status === 'found' ? '' : r.found,
    r.candidates.slice(0, 3).join(', '),
  ]);
  return `${head}\n${formatTable(['field', 'status', 'path', 'found there', 'candidates'], rows)}\n`;
}

/** Analyses the answers, prints the tables, writes the suggestion; true when the contract fits. */
export function reportProbe(
  contract: CompiledContract,
  answers: readonly RecordedAnswer[],
  suggestFile: string,
  out: CliOutput,
  userFile?: string,
): boolean {
  const analyses = answers.map((a) =>
    analyseAnswer(
      contract,
      a.status >= 400 ? { ...a, endpoint: 'error' } : a,
      a.status < 400 && isListEndpoint(a.endpoint),
    ),
  );
  for (const analysis of analyses) out.write(`\n${formatAnalysis(analysis)}`);
  const suggestion = suggestContract(contract, answers);
  // Fields that fit are not enough: a parameter the API refused under the contract's name would
  // refuse every poll of `run` (and init would read its lists through it).
  const fieldsFit = analyses.every((a) => a.fits);
  // And a list whose next page the contract would not follow: run would read its first page only.
  const paged = suggestion.pagingChanges.length === 0;
  const fits = fieldsFit && suggestion.paramChanges.length === 0 && paged;
  const notes = suggestion.undecided.map((line) => `# TODO: ${line}`).join('\n');
  const text = yamlText(suggestion.contract, { aliasDuplicateObjects: false });
  writeFileSync(
    suggestFile,
    `# Suggested by shelfwatch probe from ${answers.length} recorded answers; merged over the contract it checked.\n${notes}\n${text}`,
  );
  out.write(
    `\n${fits ? 'The contract fits every answer.' : !fieldsFit ? 'The contract does not fit: see the fields above.' : suggestion.paramChanges.length > 0 ? `The contract's fields fit every answer, but the API took parameters otherwise than it names them: ${suggestion.paramChanges.join('; ')}` : "The contract's fields fit every answer, but not its pagination."}${paged ? '' : `\nIt would read only the first page of a list:\n${suggestion.pagingChanges.map((c) => `  - ${c}`).join('\n')}`}\nSuggested contract file: ${suggestFile}\n`,
  );
  if (userFile !== undefined && resolve(userFile) !== resolve(suggestFile) && existsSync(userFile)) {
    const diff = lineDiff(readFileSync(userFile, 'utf8'), text);
    out.write(
      diff === ''
        ? `It changes nothing in ${userFile}.\n`
        : `Changes to ${userFile} (- yours, + suggested):\n${diff}`,
    );
  }
  if (suggestion.undecided.length > 0)
    out.write(
      `Could not decide (edit the file):\n${suggestion.undecided.map((u) => `  - ${u}`).join('\n')}\n`,
    );
  return fits;
}

async function probeOnline(
  flags: ProbeFlags,
  picked: ProbedEndpoint[],
  io: CliIo,
): Promise<RecordedAnswer[]> {
  const config = loadConfigOrThrow(io, flags.config);
  const ws = pickWorkspace(config, flags.workspace);
  const contract = contractFrom(flags.contract, ws);
  const planned = plannedEndpoints(picked, flags.asin);
  const max =
    flags.maxRequests === undefined
      ? DEFAULT_MAX_PROBE_REQUESTS
      : parseIntegerFlag('--max-requests', flags.maxRequests, 1, 1000);
  const expected = plannedRequests(picked, flags.asin, contract);
  io.stdout.write(
    `probe: ${plural(expected, 'request')} from workspace ${ws.id}'s budget (${planned.join(', ')}) if the API takes every parameter as the contract names it, at most ${max} (--max-requests) with the names it refuses tried again and the last page of book keywords that come in pages${expected > plannedRequests(picked, flags.asin) ? ' (a second page of a list is among them: does the cursor go without the filters?)' : ''}; answers saved in ${flags.out}\n`,
  );
  const unchecked: string[] = [];
  const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
  await connectRuntime(runtime);
  let spent = 0;
  try {
    const limits = { perMinute: ws.plan.perMinute, perMonth: ws.plan.perMonth };
    const answers = await probeService({
      baseUrl: ws.baseUrl,
      apiKey: ws.apiKey.reveal(),
      allowInsecure: ws.allowInsecure,
      contract,
      endpoints: picked,
      ...(flags.asin === undefined ? {} : { asin: flags.asin }),
      now: Date.now(),
      maxRequests: max,
      unchecked,
      // Stamped again when its answer is in, as a poll's request is (budget/gate.ts).
      beforeRequest: async () => {
        const one = await acquireOne(runtime.budget, ws.id, limits);
        if (!('done' in one)) throw new BudgetExhaustedError(ws.id, one.refusal, Date.now());
        spent += 1;
        return one.done;
      },
    });
    writeRecording(flags.out, answers, [ws.apiKey.reveal()]);
    io.stdout.write(`probe: spent ${plural(spent, 'request')}\n`);
    if (unchecked.length > 0)
      io.stdout.write(`Not checked:\n${unchecked.map((line) => `  - ${line}`).join('\n')}\n`);
    return answers;
  } catch (error) {
    if (error instanceof ProbeError || error instanceof BudgetExhaustedError)
      throw new CliError(`probe: ${error.message} (spent ${plural(spent, 'request')})`, { cause: error });
    throw error;
  } finally {
    await runtime.close();
  }
}

export function registerProbeCommand(program: Command, io: CliIo): void {
  program
    .command('probe')
    .description(summaryOf('probe'))
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option(
      '-w, --workspace <id>',
      'the workspace whose key and budget probe (needed when the config has several)',
    )
    .option(
      '--contract <file>',
      "the contract to check against (default: the workspace's api.contract, else the assumed one)",
    )
    .option('--endpoint <name>', `only this endpoint (repeatable): ${PROBED_ENDPOINTS.join(', ')}`, collect)
    .option('--asin <asin>', 'a real ASIN of the account (default: one from the rankings answer)')
    .option('--out <dir>', 'where the answers are saved', 'probe-answers')
    .option('--offline <dir>', 'analyse answers saved earlier instead of calling the API')
    .option('--suggest <file>', 'where the suggested contract is written (default: in the answers folder)')
    .option(
      '--max-requests <n>',
      `the most requests probe may spend, parameter names tried again included (default ${DEFAULT_MAX_PROBE_REQUESTS})`,
    )
    .addHelpText('after', EXAMPLES)
    .action(async (flags: ProbeFlags) => {
      const parsed = parseEndpoints(flags.endpoint ?? [...PROBED_ENDPOINTS]);
      if ('unknown' in parsed)
        throw usageError(`--endpoint expects one of ${PROBED_ENDPOINTS.join(', ')}, got "${parsed.unknown}"`);
      let answers: RecordedAnswer[];
      let contract: CompiledContract;
      let userFile: string | undefined;
      const dir = resolve(io.cwd, flags.offline ?? flags.out);
      if (flags.offline !== undefined) {
        if (!existsSync(dir)) throw usageError(`--offline: no folder ${dir}`);
        try {
          answers = readRecording(dir).filter(
            (a) => flags.endpoint === undefined || (parsed as string[]).includes(a.endpoint),
          );
        } catch (error) {
          if (error instanceof RecordingError) throw usageError(error.message);
          throw error;
        }
        const config = flags.config === undefined ? undefined : loadConfigOrThrow(io, flags.config);
        const ws = config === undefined ? undefined : pickWorkspace(config, flags.workspace);
        contract = contractFrom(flags.contract, ws);
        userFile = contractFileOf(flags.contract, ws);
      } else {
        answers = await probeOnline({ ...flags, out: dir }, parsed, io);
        const config = loadConfigOrThrow(io, flags.config);
        const ws = pickWorkspace(config, flags.workspace);
        contract = contractFrom(flags.contract, ws);
        userFile = contractFileOf(flags.contract, ws);
      }
      const fits = reportProbe(
        contract,
        answers,
        resolve(io.cwd, flags.suggest ?? join(dir, 'contract.suggested.yaml')),
        io.stdout,
        userFile === undefined ? undefined : resolve(io.cwd, userFile),
      );
      if (!fits)
        throw new CliError('the answers do not fit the contract', { exitCode: EXIT_CONTRACT_DOES_NOT_FIT });
    });
}
