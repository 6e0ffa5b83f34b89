import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { Runtime } from '../app/runtime.ts';
import { DeliveryError } from '../channels/notifier.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { secretsIn } from '../config-kit/secret.ts';
import { buildDigest, type DigestRecipient } from '../digest/build.ts';
import { deliverDigest, inlineImagesAsDataUris, writeAtomically } from '../digest/send.ts';
import { DeferredError } from '../model/deferred.ts';
import { createLogger } from '../ops/logger.ts';
import { summaryOf } from './commands.ts';
import { CliError, usageError } from './errors.ts';
import { printJson } from './format.ts';
import { type CliIo, outputStream } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { logLevelOption } from './terminal.ts';
import { VERSION } from './version.ts';
import { workspaceFromFlag } from './workspace-flag.ts';

interface DigestFlags {
  now?: boolean;
  workspace?: string;
  out?: string;
  config?: string;
  logLevel: string;
  json?: boolean;
}

/** `digest --json`: what was written or sent, and to whom it failed. */
interface DigestOutcome {
  wrote?: { file: string; subject: string };
  sent: { workspace: string; channel: string; to: string; subject: string }[];
  failed: { workspace: string; channel: string; error: string }[];
}

const EXAMPLES = `
Examples:
  $ shelfwatch digest --now                          send today's digest to every configured recipient
  $ shelfwatch digest --now --workspace acme         only the recipients of workspace acme
  $ shelfwatch digest --now --out digest.html        write it to a file (charts inlined), send nothing

The digest reports the recipient's local yesterday. Scheduled digests are sent by "shelfwatch run"
at digest.time in each recipient's time zone; a digest sent with --now does not replace that one,
but the next digest lists revisions and moves since it. Sales are fetched fresh (a few requests
from the workspace's budget); ranks and reviews come from the poller's snapshots.`;

function recipientsFor(config: ShelfwatchConfig, workspace: string | undefined): DigestRecipient[] {
  return config.digest.recipients.filter((r) => workspace === undefined || r.workspace === workspace);
}

function checkWorkspace(config: ShelfwatchConfig, workspace: string | undefined): void {
  if (workspace !== undefined) workspaceFromFlag(config, workspace);
}

/** The recipient whose time zone and last digest a file preview uses: the workspace's first, if any. */
function previewRecipient(config: ShelfwatchConfig, workspace: string | undefined): DigestRecipient {
  const id = workspace ?? config.workspaces[0]?.id;
  if (workspace === undefined && config.workspaces.length > 1) {
    throw usageError(
      `--out writes one workspace's digest: add --workspace (one of ${config.workspaces.map((w) => w.id).join(', ')})`,
    );
  }
  if (id === undefined) throw usageError('the config has no workspace');
  const ws = workspaceFromFlag(config, id);
  return recipientsFor(config, ws.id)[0] ?? { workspace: ws.id, channel: 'preview', timeZone: ws.timeZone };
}

function explain(error: unknown): never {
  if (error instanceof DeferredError) {
    throw new CliError(
      `the digest cannot fetch sales now (${error.reason}); try again after ${new Date(error.retryAtMs).toISOString()}`,
      { cause: error },
    );
  }
  if (error instanceof DeliveryError) throw new CliError(error.message, { cause: error });
  throw error;
}

async function runDigest(
  flags: DigestFlags,
  io: CliIo,
  write: (line: string) => void,
  outcome: DigestOutcome,
): Promise<void> {
  if (flags.now !== true) {
    throw usageError(
      'digest: pass --now to build a digest now (scheduled digests are sent by "shelfwatch run")',
    );
  }
  const config = loadConfigOrThrow(io, flags.config);
  checkWorkspace(config, flags.workspace);
  const out = flags.out === undefined ? undefined : resolve(io.cwd, flags.out);
  const preview = out === undefined ? undefined : previewRecipient(config, flags.workspace);
  const recipients = recipientsFor(config, flags.workspace);
  if (out === undefined && recipients.length === 0) {
    const which = flags.workspace === undefined ? '' : ` for workspace "${flags.workspace}"`;
    throw usageError(`no digest recipients${which} in the config: add digest.recipients, or use --out FILE`);
  }
  // stderr: stdout carries what was sent (or the JSON).
  const logger = createLogger({
    level: flags.logLevel,
    destination: outputStream(io.stderr),
    secrets: secretsIn(config),
  });
  const runtime = new Runtime({ config, logger, version: VERSION });
  await connectRuntime(runtime);
  const smtp = runtime.smtp;
  try {
    const deps = runtime.digestDeps(smtp);
    if (out !== undefined && preview !== undefined) {
      const built = await buildDigest(deps, {
        workspace: preview.workspace,
        recipient: preview,
        nowMs: runtime.clock.now(),
      }).catch(explain);
      const html = inlineImagesAsDataUris(built.html, built.attachments);
      const file = await writeAtomically(dirname(out), basename(out), html).catch((cause: unknown) => {
        throw new CliError(`--out: cannot write ${out}: ${(cause as Error).message}`, { cause });
      });
      outcome.wrote = { file, subject: built.subject };
      write(`wrote ${file}: ${built.subject}`);
      return;
    }
    const failed: string[] = [];
    for (const recipient of recipients) {
      try {
        const { built, result } = await deliverDigest(deps, {
          recipient,
          nowMs: runtime.clock.now(),
          scheduledDate: null,
        });
        const where =
          result.kind === 'email'
            ? `email to ${result.accepted.join(', ')}`
            : result.kind === 'chat'
              ? `${result.type} message`
              : result.files[0];
        outcome.sent.push({
          workspace: recipient.workspace,
          channel: recipient.channel,
          to: where ?? '',
          subject: built.subject,
        });
        write(`sent to ${recipient.channel} (${where}): ${built.subject}`);
      } catch (error) {
        // A refused address must not keep the other recipients from their digest.
        if (!(error instanceof DeliveryError)) explain(error);
        failed.push(`${recipient.workspace}/${recipient.channel}: ${error.message}`);
        outcome.failed.push({
          workspace: recipient.workspace,
          channel: recipient.channel,
          error: error.message,
        });
      }
    }
    if (failed.length > 0)
      throw new CliError(`digest not sent to ${failed.length} recipient(s):\n  ${failed.join('\n  ')}`);
  } finally {
    await runtime.close();
  }
}

export function registerDigestCommand(program: Command, io: CliIo): void {
  const write = (line: string) => io.stdout.write(`${line}\n`);
  program
    .command('digest')
    .description(summaryOf('digest'))
    .option('--now', 'build one digest now (required: scheduled digests are sent by "shelfwatch run")')
    .option('-w, --workspace <id>', 'only this workspace (needed with --out when there are several)')
    .option('-o, --out <file.html>', 'write the HTML, charts inlined, to this file instead of sending')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .addOption(logLevelOption('warn', io.env))
    .option('--json', 'print {wrote?, sent: [...], failed: [...]} as JSON instead of lines')
    .addHelpText('after', EXAMPLES)
    .action(async (_options: unknown, command: Command) => {
      const flags = command.opts<DigestFlags>();
      const outcome: DigestOutcome = { sent: [], failed: [] };
      try {
        await runDigest(flags, io, flags.json === true ? () => {} : write, outcome);
      } finally {
        // A partial failure still says, in JSON, who got the digest.
        if (
          flags.json === true &&
          (outcome.wrote !== undefined || outcome.sent.length + outcome.failed.length > 0)
        )
          printJson(outcome, { write: (text: string) => write(text.trimEnd()) });
      }
    });
}
