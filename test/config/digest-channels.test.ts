/**
 * Which channels carry the digest: email and outbox (the full report), Slack, Discord and Teams
 * (the compact one); a person's digest subscription goes by email and through their own channel.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { problemAt, validRaw } from './helpers.ts';

function parse(extra: Record<string, unknown>) {
  return parseConfig({ ...validRaw(), ...extra });
}

describe('digest channels', () => {
  it('takes email and chat channels as recipients', () => {
    const result = parse({
      digest: {
        recipients: [
          { workspace: 'acme', channel: 'team-mail' },
          { workspace: 'acme', channel: 'team-slack' },
        ],
      },
    });
    expect(result.ok).toBe(true);
  });

  it('refuses a channel that cannot show a digest, at its path', () => {
    const result = parse({ digest: { recipients: [{ workspace: 'acme', channel: 'log' }] } });
    if (result.ok) throw new Error('expected problems');
    expect(problemAt(result.problems, 'digest.recipients[0].channel').message).toBe(
      'expected a channel of type email, outbox, slack, discord, teams (the digest\'s), got "log" of type log',
    );
  });

  const person = (via?: 'email' | 'channel') => ({
    people: {
      accounts: [
        {
          id: 'bob',
          name: 'Bob',
          email: 'bob@example.com',
          timeZone: 'America/New_York',
          channel: { type: 'slack', webhookUrl: 'https://hooks.slack.com/services/T0/B0/bob-token' },
        },
      ],
      subscriptions: [{ person: 'bob', alerts: false, digest: true, ...(via === undefined ? {} : { via }) }],
    },
  });

  it("sends a person's digest by email and through their own channel; via keeps one", () => {
    const channelsOf = (via?: 'email' | 'channel') => {
      const result = parse(person(via));
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      return result.config.digest.recipients.map((r) => [r.channel, r.timeZone]);
    };
    expect(channelsOf()).toEqual([
      ['person-bob', 'America/New_York'],
      ['person-bob-mail', 'America/New_York'],
    ]);
    expect(channelsOf('email')).toEqual([['person-bob-mail', 'America/New_York']]);
    expect(channelsOf('channel')).toEqual([['person-bob', 'America/New_York']]);
  });

  it("sends a person's digest by email only when their own channel cannot show one (ntfy)", () => {
    const raw = person();
    const account = raw.people.accounts[0] as Record<string, unknown>;
    account.channel = { type: 'ntfy', topic: 'bob-alerts' };
    const result = parse(raw);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.config.digest.recipients.map((r) => r.channel)).toEqual(['person-bob-mail']);
  });
});
