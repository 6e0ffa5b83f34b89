/** The config's `people:` section: strict, and every reference checked at its path. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import type { ConfigProblem } from '../../src/config-kit/problems.ts';
import { problemAt, validRaw } from './helpers.ts';

type Raw = Record<string, unknown>;

function withPeople(people: Raw, change: (raw: Raw) => void = () => {}) {
  const raw = validRaw();
  raw.people = people;
  change(raw);
  return parseConfig(raw);
}

function problems(people: Raw, change?: (raw: Raw) => void): ConfigProblem[] {
  const result = withPeople(people, change);
  if (result.ok) throw new Error('expected the config to be invalid, but it parsed');
  return result.problems;
}

const ana = { id: 'ana', name: 'Ana', email: 'ana@example.com' };

describe('people', () => {
  it('parses a person with their own channel, zone and locale; their channels join the config', () => {
    const result = withPeople({
      accounts: [
        {
          ...ana,
          timeZone: 'Europe/Berlin',
          locale: 'de-DE',
          role: 'admin',
          channel: { type: 'slack', webhookUrl: 'https://hooks.slack.com/services/T0/B0/ana' },
          token: 'a-personal-token-of-24-characters',
        },
      ],
      subscriptions: [
        { person: 'ana', asin: ['B0CJ4XQ2ZK'], kinds: ['bsr_worsened'], minSeverity: 'warning' },
      ],
    });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const { config } = result;
    expect(config.people.accounts[0]).toMatchObject({
      id: 'ana',
      timeZone: 'Europe/Berlin',
      locale: 'de-DE',
      role: 'admin',
      channelId: 'person-ana',
      mailChannelId: 'person-ana-mail',
    });
    const mail = config.channels.find((c) => c.id === 'person-ana-mail');
    expect(mail).toMatchObject({ type: 'email', to: ['ana@example.com'], from: 'alerts@example.com' });
    expect(config.channels.find((c) => c.id === 'person-ana')).toMatchObject({
      type: 'slack',
      locale: 'de-DE',
    });
    // The catch-all route stays the team's: people's channels are not in it.
    expect(config.routes[0]?.channels).toEqual(['log', 'team-slack', 'team-mail']);
  });

  const cases: { name: string; people: Raw; path: string; message: RegExp }[] = [
    {
      name: 'an unknown person in a subscription',
      people: { accounts: [ana], subscriptions: [{ person: 'anna' }] },
      path: 'people.subscriptions[0].person',
      message: /expected the id of a configured person, got "anna"/,
    },
    {
      name: 'an unknown book in a subscription',
      people: { accounts: [ana], subscriptions: [{ person: 'ana', asin: ['B000000000'] }] },
      path: 'people.subscriptions[0].asin[0]',
      message: /configured book \(ASIN\), got "B000000000"/,
    },
    {
      name: 'an unknown kind in a subscription',
      people: { accounts: [ana], subscriptions: [{ person: 'ana', kinds: ['bsr_drop'] }] },
      path: 'people.subscriptions[0].kinds[0]',
      message: /bsr_worsened/,
    },
    {
      name: 'an unknown author',
      people: { accounts: [ana], subscriptions: [{ person: 'ana', author: 'Nobody' }] },
      path: 'people.subscriptions[0].author',
      message: /configured author, got "Nobody"/,
    },
    {
      name: 'an unknown key on a person',
      people: { accounts: [{ ...ana, phone: '123' }] },
      path: 'people.accounts[0].phone',
      message: /unknown key "phone"/,
    },
    {
      name: 'an id on a person’s channel',
      people: {
        accounts: [
          { ...ana, channel: { id: 'x', type: 'slack', webhookUrl: 'https://hooks.slack.com/services/a' } },
        ],
      },
      path: 'people.accounts[0].channel.id',
      message: /expected no id/,
    },
    {
      name: 'a team channel type as a person’s channel',
      people: { accounts: [{ ...ana, channel: { type: 'outbox', dir: '/tmp' } }] },
      path: 'people.accounts[0].channel.type',
      message: /slack/,
    },
    {
      name: 'a bad locale',
      people: { accounts: [{ ...ana, locale: 'german' }] },
      path: 'people.accounts[0].locale',
      message: /expected a locale such as/,
    },
    {
      name: 'a short personal token',
      people: { accounts: [{ ...ana, token: 'short' }] },
      path: 'people.accounts[0].token',
      message: /at least 24 characters/,
    },
    {
      name: 'the same person twice',
      people: { accounts: [ana, ana] },
      path: 'people.accounts[1].id',
      message: /unique person id/,
    },
  ];
  for (const c of cases) {
    it(`refuses ${c.name} at its path`, () => {
      expect(problemAt(problems(c.people), c.path).message).toMatch(c.message);
    });
  }

  it('refuses email subscriptions when no email channel carries people’s mail', () => {
    const found = problems({ accounts: [ana], subscriptions: [{ person: 'ana' }] }, (raw) => {
      raw.channels = [{ id: 'log', type: 'log' }];
    });
    expect(problemAt(found, 'people.mailChannel').message).toMatch(
      /expected an email channel for people's mail/,
    );
  });

  it('refuses a mail channel that is not an email channel', () => {
    const found = problems({ mailChannel: 'team-slack', accounts: [ana] });
    expect(problemAt(found, 'people.mailChannel').message).toMatch(
      /configured email channel, got "team-slack"/,
    );
  });
});
