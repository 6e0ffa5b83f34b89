import type { Command } from 'commander';
import { createNotifiers } from '../app/notifiers.ts';
import { createSmtpPool } from '../channels/smtp-pool.ts';
import type { ChannelConfig } from '../config/schema.ts';
import { secretsIn } from '../config-kit/secret.ts';
import { sendSampleAlert, type TestAlertResult } from '../deliver/sample-alert.ts';
import { createLogger } from '../ops/logger.ts';
import { systemClock } from '../util/clock.ts';
import { summaryOf } from './commands.ts';
import { CliError, usageError } from './errors.ts';
import { printJson, terminalText } from './format.ts';
import { type CliIo, outputStream } from './io.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';

const EXAMPLES = `
Sends "Test alert from shelfwatch — no action needed (channel X works)" straight through each channel
(or the one named): no grouping, quiet hours, pacing or dedup, and no Redis needed. A log channel
writes its line to stderr. Exit status 1 when any channel failed. With --json stdout is only
{"ok": bool, "channels": [{"id", "type", "ok", "reason"?}]}.

A channel that shelfwatch disabled after a permanent refusal stays disabled for alerts even when
this test works: re-enable it with "shelfwatch dlq retry --channel ID".

Examples:
  $ shelfwatch test-alert
  $ shelfwatch test-alert team-slack --config shelfwatch.yaml`;

/** Slack's own timeout is 10 s; this bounds a channel that never answers at all. */
const SEND_TIMEOUT_MS = 30_000;

/** Builds the channels' notifiers as `run` does and sends the sample through each, one at a time. */
async function testChannels(channels: readonly ChannelConfig[], io: CliIo): Promise<TestAlertResult[]> {
  // stderr: stdout carries the per-channel results.
  const logger = createLogger({ destination: outputStream(io.stderr), secrets: secretsIn(channels) });
  const smtp = createSmtpPool();
  const notifiers = createNotifiers(channels, { logger, smtp, clock: systemClock });
  const results: TestAlertResult[] = [];
  try {
    for (const notifier of notifiers.values()) {
      const zone = channels.find((c) => c.id === notifier.id)?.timeZone;
      results.push(await sendSampleAlert(notifier, Date.now(), AbortSignal.timeout(SEND_TIMEOUT_MS), zone));
    }
  } finally {
    for (const notifier of notifiers.values()) await notifier.close?.();
    await smtp.closeAll();
  }
  return results;
}

export function registerTestAlertCommand(program: Command, io: CliIo): void {
  program
    .command('test-alert')
    .description(summaryOf('test-alert'))
    .argument('[channel]', 'the id of one channel (default: all)')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .option('--json', 'print the results as JSON')
    .addHelpText('after', EXAMPLES)
    .action(async (channelId: string | undefined, flags: { config?: string; json?: boolean }) => {
      const config = loadConfigOrThrow(io, flags.config);
      const channels = config.channels.filter((c) => channelId === undefined || c.id === channelId);
      if (channels.length === 0) {
        const known = config.channels.map((c) => c.id).join(', ');
        throw usageError(`no channel "${channelId}" in the config (known: ${known})`);
      }
      const typeOf = new Map(channels.map((c) => [c.id, c.type]));
      const results = (await testChannels(channels, io)).map((result) => ({
        id: result.channelId,
        type: typeOf.get(result.channelId) ?? '?',
        ok: result.ok,
        ...(result.ok ? {} : { reason: terminalText(result.reason).replace(/\s+/g, ' ') }),
      }));
      const failed = results.filter((r) => !r.ok).map((r) => r.id);
      if (flags.json === true) printJson({ ok: failed.length === 0, channels: results }, io.stdout);
      for (const result of flags.json === true ? [] : results) {
        const label = `${result.id} (${result.type})`;
        io.stdout.write(result.ok ? `ok      ${label}\n` : `failed  ${label}: ${result.reason}\n`);
      }
      if (failed.length > 0) {
        throw new CliError(`${failed.length} of ${channels.length} channels failed: ${failed.join(', ')}`);
      }
    });
}
