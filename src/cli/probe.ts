import { existsSync, writeFileSync } from 'node:fs';
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
import { BudgetExhaustedError } from '../budget/request-budget.ts';
import { workspaceContract } from '../config/contract.ts';
import type { WorkspaceConfig } from '../config/schema.ts';
import { silentLogger } from '../ops/logger.ts';
import {
  analyseAnswer,
  type EndpointAnalysis,
  PROBED_ENDPOINTS,
  type ProbedEndpoint,
  ProbeError,
  parseEndpoints,
  plannedEndpoints,
  probeService,
  type RecordedAnswer,
  RecordingError,
  readRecording,
  suggestContract,
  writeRecording,
} from '../tools/probe/index.ts';
import { summaryOf } from './commands.ts';
import { CliError, usageError } from './errors.ts';
import { formatTable, pickWorkspace, plural } from './format.ts';
import type { CliIo, CliOutput } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';

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
}

const EXAMPLES = `
Examples:
  $ shelfwatch probe                          every read endpoint once, answers under ./probe-answers
  $ shelfwatch probe --endpoint book --asin B0EXAMPLE1
  $ shelfwatch probe --offline ./probe-answers --contract ./publishing-api.yaml

Online it spends at most one request per endpoint from the workspace's budget (the interactive
reserve may be used) and says how many first. Answers are saved with the key, credentials and
email addresses taken out. It prints, per endpoint, each logical field found / missing / wrong type,
where it looked and what it found, and candidate paths elsewhere in the answer; it writes a
suggested contract file and lists what it could not decide. Exit 0: the contract fits; 3: it
does not (see the suggestion); 1: the service could not be probed; 2: bad input.`;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
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
): boolean {
  const analyses = answers.map((a) =>
    analyseAnswer(
      contract,
      a.status >= 400 ? { ...a, endpoint: 'error' } : a,
      a.status < 400 && isListEndpoint(a.endpoint),
    ),
  );
  for (const analysis of analyses) out.write(`\n${formatAnalysis(analysis)}`);
  const fits = analyses.every((a) => a.fits);
  const suggestion = suggestContract(contract, answers);
  const notes = suggestion.undecided.map((line) => `# TODO: ${line}`).join('\n');
  writeFileSync(
    suggestFile,
    `# Suggested by shelfwatch probe from ${answers.length} recorded answers; merged over the contract it checked.\n${notes}\n${yamlText(suggestion.contract, { aliasDuplicateObjects: false })}`,
  );
  out.write(
    `\n${fits ? 'The contract fits every answer.' : 'The contract does not fit: see the fields above.'}\nSuggested contract file: ${suggestFile}\n`,
  );
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
  io.stdout.write(
    `probe: at most ${plural(planned.length, 'request')} from workspace ${ws.id}'s budget (${planned.join(', ')}), answers saved in ${flags.out}\n`,
  );
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
      beforeRequest: async () => {
        const decision = await runtime.budget.tryAcquire(ws.id, limits);
        if (!decision.granted) throw new BudgetExhaustedError(ws.id, decision, Date.now());
        spent += 1;
      },
    });
    writeRecording(flags.out, answers, [ws.apiKey.reveal()]);
    io.stdout.write(`probe: spent ${plural(spent, 'request')}\n`);
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
    .addHelpText('after', EXAMPLES)
    .action(async (flags: ProbeFlags) => {
      const parsed = parseEndpoints(flags.endpoint ?? [...PROBED_ENDPOINTS]);
      if ('unknown' in parsed)
        throw usageError(`--endpoint expects one of ${PROBED_ENDPOINTS.join(', ')}, got "${parsed.unknown}"`);
      let answers: RecordedAnswer[];
      let contract: CompiledContract;
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
        contract = contractFrom(
          flags.contract,
          config === undefined ? undefined : pickWorkspace(config, flags.workspace),
        );
      } else {
        answers = await probeOnline({ ...flags, out: dir }, parsed, io);
        const config = loadConfigOrThrow(io, flags.config);
        contract = contractFrom(flags.contract, pickWorkspace(config, flags.workspace));
      }
      const fits = reportProbe(
        contract,
        answers,
        resolve(io.cwd, flags.suggest ?? join(dir, 'contract.suggested.yaml')),
        io.stdout,
      );
      if (!fits)
        throw new CliError('the answers do not fit the contract', { exitCode: EXIT_CONTRACT_DOES_NOT_FIT });
    });
}
