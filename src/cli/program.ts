/**
 * The shelfwatch program, built by a function and run without touching the process: `main.ts` runs
 * it with the process's streams and environment and exits with its code; tests run it in process
 * with their own (`CliIo`). The root knows each command by name and summary only (commands.ts);
 * the command's module, with its options, help and code, is imported when that command runs, so
 * `validate` never loads BullMQ and `--version` loads no command at all.
 */
import { Command, CommanderError } from 'commander';
import { COMMAND_SUMMARIES, type CommandName, isCommandName } from './commands.ts';
import { CliError } from './errors.ts';
import { terminalText } from './format.ts';
import type { CliIo } from './io.ts';
import { VERSION } from './version.ts';

export type RegisterCommand = (program: Command, io: CliIo) => void;

/** Each command's module, loaded on demand; `snooze` lives beside `silence`. */
const LOADERS: Record<CommandName, () => Promise<RegisterCommand>> = {
  run: async () => (await import('./run.ts')).registerRunCommand,
  sim: async () => (await import('./sim.ts')).registerSimCommand,
  demo: async () => (await import('./demo.ts')).registerDemoCommand,
  plan: async () => (await import('./plan.ts')).registerPlanCommand,
  probe: async () => (await import('./probe.ts')).registerProbeCommand,
  init: async () => (await import('./init.ts')).registerInitCommand,
  digest: async () => (await import('./digest.ts')).registerDigestCommand,
  validate: async () => (await import('./validate.ts')).registerValidateCommand,
  schema: async () => (await import('./schema.ts')).registerSchemaCommand,
  status: async () => (await import('./status.ts')).registerStatusCommand,
  'test-alert': async () => (await import('./test-alert.ts')).registerTestAlertCommand,
  keywords: async () => (await import('./keywords.ts')).registerKeywordsCommand,
  arc: async () => (await import('./arc.ts')).registerArcCommand,
  dlq: async () => (await import('./dlq.ts')).registerDlqCommand,
  export: async () => (await import('./export.ts')).registerExportCommand,
  resume: async () => (await import('./resume.ts')).registerResumeCommand,
  shards: async () => (await import('./shards.ts')).registerShardsCommand,
  silence: async () => (await import('./silence.ts')).registerSilenceCommands,
  snooze: async () => (await import('./silence.ts')).registerSilenceCommands,
  console: async () => (await import('./console.ts')).registerConsoleCommand,
  config: async () => (await import('./config.ts')).registerConfigCommand,
};

/** The command an argument list runs: the first word that is not a root flag (`help X` runs X's help). */
function commandOf(args: readonly string[]): CommandName | undefined {
  const words = args.filter((arg) => !arg.startsWith('-'));
  const [first, second] = words;
  const name = first === 'help' ? second : first;
  return name !== undefined && isCommandName(name) ? name : undefined;
}

function rootProgram(io: CliIo): Command {
  return new Command('shelfwatch')
    .description('Watches a publishing workspace through the Publishing Analytics API and alerts people.')
    .version(VERSION, '-V, --version')
    .option('--verbose', 'print stack traces of errors')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: () => {},
      getOutHelpWidth: () => io.stdout.columns ?? 80,
      getErrHelpWidth: () => 80,
    });
}

/**
 * The program for these arguments: the root with the command they name, fully registered, or with
 * every command as a name and a summary (for `--help`, `--version`, an unknown command).
 */
export async function buildProgram(io: CliIo, args: readonly string[]): Promise<Command> {
  const program = rootProgram(io);
  const name = commandOf(args);
  if (name !== undefined) {
    (await LOADERS[name]())(program, io);
    return program;
  }
  for (const [command, summary] of Object.entries(COMMAND_SUMMARIES))
    program.command(command).description(summary);
  return program;
}

/** Error text can carry an API's or a server's words: printed terminal-safe (see `terminalText`). */
function printError(io: CliIo, message: string): void {
  io.stderr.write(`shelfwatch: ${terminalText(message)}\n`);
}

/**
 * Runs `shelfwatch ARGS…` (without node and the script) and resolves to its exit code; it never
 * exits the process. Bad usage is 2, a failure 1, or the CliError's own code.
 */
export async function runProgram(args: readonly string[], io: CliIo): Promise<number> {
  const verbose = args.includes('--verbose');
  const stack = (error: unknown) => {
    if (verbose && error instanceof Error && error.stack !== undefined) io.stderr.write(`${error.stack}\n`);
  };
  try {
    const program = await buildProgram(io, args);
    await program.parseAsync([...args], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version "errors" are how commander ends a successful --help / --version.
      if (error.exitCode === 0) return 0;
      printError(io, `${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')} (see --help)`);
      return 2;
    }
    if (error instanceof CliError) {
      printError(io, error.message);
      stack(error);
      return error.exitCode;
    }
    printError(io, error instanceof Error ? error.message : String(error));
    stack(error);
    return 1;
  }
}
