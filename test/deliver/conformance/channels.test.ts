/** Every registered channel passes the conformance suite against its local receiver. */
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../../src/channels/registry.ts';
import { discordHarness, ntfyHarness, teamsHarness, telegramHarness } from './chat.ts';
import { emailHarness, logHarness, outboxHarness, slackHarness } from './existing.ts';
import { conformanceSuite, type RunningChannel } from './suite.ts';
import { webhookHarness } from './webhook.ts';

const HARNESSES: Record<string, () => Promise<RunningChannel>> = {
  log: logHarness,
  slack: slackHarness,
  email: emailHarness,
  outbox: outboxHarness,
  webhook: webhookHarness,
  discord: discordHarness,
  teams: teamsHarness,
  telegram: telegramHarness,
  ntfy: ntfyHarness,
};

describe('the channel registry', () => {
  it('has a conformance harness for every registered channel', () => {
    expect(CHANNELS.map((channel) => channel.type).filter((type) => HARNESSES[type] === undefined)).toEqual(
      [],
    );
  });
});

for (const channel of CHANNELS) {
  const harness = HARNESSES[channel.type];
  if (harness !== undefined) conformanceSuite(channel.type, harness);
}
