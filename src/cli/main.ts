import { Command, CommanderError } from 'commander';
import { registerArcCommand } from './arc.ts';
import { registerConsoleCommand } from './console.ts';
import { registerDemoCommand } from './demo.ts';
import { registerDigestCommand } from './digest.ts';
import { registerDlqCommand } from './dlq.ts';
import { CliError } from './errors.ts';
import { registerExportCommand } from './export.ts';
import { terminalText } from './format.ts';
import { registerInitCommand } from './init.ts';
import { registerKeywordsCommand } from './keywords.ts';
import { registerPlanCommand } from './plan.ts';
import { registerProbeCommand } from './probe.ts';
import { registerResumeCommand } from './resume.ts';
import { registerRunCommand } from './run.ts';
import { registerSchemaCommand } from './schema.ts';
import { registerShardsCommand } from './shards.ts';
import { registerSilenceCommands } from './silence.ts';
import { registerSimCommand } from './sim.ts';
import { registerStatusCommand } from './status.ts';
import { registerTestAlertCommand } from './test-alert.ts';
import { registerValidateCommand } from './validate.ts';
import { VERSION } from './version.ts';

function buildProgram(): Command {
  const program = new Command('shelfwatch')
    .description('Watches a publishing workspace through the Publishing Analytics API and alerts people.')
    .version(VERSION, '-V, --version')
    .option('--verbose', 'print stack traces of errors')
    .exitOverride()
    .configureOutput({ outputError: () => {} });
  registerRunCommand(program);
  registerSimCommand(program);
  registerDemoCommand(program);
  registerPlanCommand(program);
  registerProbeCommand(program);
  registerInitCommand(program);
  registerDigestCommand(program);
  registerValidateCommand(program);
  registerSchemaCommand(program);
  registerStatusCommand(program);
  registerTestAlertCommand(program);
  registerKeywordsCommand(program);
  registerArcCommand(program);
  registerDlqCommand(program);
  registerExportCommand(program);
  registerResumeCommand(program);
  registerShardsCommand(program);
  registerSilenceCommands(program);
  registerConsoleCommand(program);
  return program;
}

/** Error text can carry an API's or a server's words: printed terminal-safe (see `terminalText`). */
function printError(message: string): void {
  process.stderr.write(`shelfwatch: ${terminalText(message)}\n`);
}

async function main(argv: readonly string[]): Promise<void> {
  const program = buildProgram();
  const verbose = argv.includes('--verbose');
  try {
    await program.parseAsync([...argv], { from: 'node' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version "errors" are how commander ends a successful --help / --version.
      if (error.exitCode === 0) process.exit(0);
      printError(`${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')} (see --help)`);
      process.exit(2);
    }
    if (error instanceof CliError) {
      printError(error.message);
      if (verbose && error.stack !== undefined) process.stderr.write(`${error.stack}\n`);
      process.exit(error.exitCode);
    }
    printError(error instanceof Error ? error.message : String(error));
    if (verbose && error instanceof Error && error.stack !== undefined)
      process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  }
}

await main(process.argv);
