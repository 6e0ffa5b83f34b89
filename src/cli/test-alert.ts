import type { Command } from 'commander';
import { createNotifiers } from '../app/notifiers.ts';
import type { ChannelConfig } from '../config/schema.ts';
import { createSmtpPool } from '../deliver/channels/smtp-pool.ts';
import { sendSampleAlert, type TestAlertResult } from '../deliver/sample-alert.ts';
import { createLogger } from '../ops/logger.ts';
import { systemClock } from '../util/clock.ts';
import { CliError, usageError } from './errors.ts';
import { terminalText } from './format.ts';
import { CONFIG_OPTION_HELP, loadConfigOrThrow } from './load-config.ts';

const EXAMPLES = `
Sends "shelfwatch test alert — if you see this, channel X works" straight through each channel
(or the one named): no grouping, quiet hours, pacing or dedup, and no Redis needed. A log channel
writes its line to stderr. Exit status 1 when any channel failed.

A channel that shelfwatch disabled after a permanent refusal stays disabled for alerts even when
this test works: re-enable it with "shelfwatch dlq retry --channel ID".

Examples:
  $ shelfwatch test-alert
  $ shelfwatch test-alert team-slack --config shelfwatch.yaml`;

/** Slack's own timeout is 10 s; this bounds a channel that never answers at all. */
const SEND_TIMEOUT_MS = 30_000;

/** Builds the channels' notifiers as `run` does and sends the sample through each, one at a time. */
async function testChannels(channels: readonly ChannelConfig[]): Promise<TestAlertResult[]> {
  // stderr: stdout carries the per-channel results.
  const logger = createLogger({ destination: process.stderr });
  const smtp = createSmtpPool();
  const notifiers = createNotifiers(channels, { logger, smtp, clock: systemClock });
  const results: TestAlertResult[] = [];
  try {
    for (const notifier of notifiers.values()) {
      results.push(await sendSampleAlert(notifier, Date.now(), AbortSignal.timeout(SEND_TIMEOUT_MS)));
    }
  } finally {
    for (const notifier of notifiers.values()) await notifier.close?.();
    await smtp.closeAll();
  }
  return results;
}

export function registerTestAlertCommand(program: Command): void {
  program
    .command('test-alert')
    .description('send a sample alert through every channel (or one) and say which ones work')
    .argument('[channel]', 'the id of one channel (default: all)')
    .option('-c, --config <file>', CONFIG_OPTION_HELP)
    .addHelpText('after', EXAMPLES)
    .action(async (channelId: string | undefined, flags: { config?: string }) => {
      const config = loadConfigOrThrow({
        env: process.env,
        ...(flags.config === undefined ? {} : { configPath: flags.config }),
      });
      const channels = config.channels.filter((c) => channelId === undefined || c.id === channelId);
      if (channels.length === 0) {
        const known = config.channels.map((c) => c.id).join(', ');
        throw usageError(`no channel "${channelId}" in the config (known: ${known})`);
      }
      const failed: string[] = [];
      const typeOf = new Map(channels.map((c) => [c.id, c.type]));
      for (const result of await testChannels(channels)) {
        const label = `${result.channelId} (${typeOf.get(result.channelId) ?? '?'})`;
        if (result.ok) process.stdout.write(`ok      ${label}\n`);
        else {
          failed.push(result.channelId);
          process.stdout.write(`failed  ${label}: ${terminalText(result.reason).replace(/\s+/g, ' ')}\n`);
        }
      }
      if (failed.length > 0) {
        throw new CliError(`${failed.length} of ${channels.length} channels failed: ${failed.join(', ')}`);
      }
    });
}
