import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/channels/registry.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { ConfigProblem } from '../../src/config-kit/problems.ts';
import { problemAt, validRaw } from './helpers.ts';

const quoted = CHANNELS.map((channel) => `"${channel.type}"`);
const CHANNEL_TYPES = `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;

type Raw = Record<string, unknown>;

function workspace(raw: Raw, index = 0): Raw {
  return (raw.workspaces as Raw[])[index] as Raw;
}

function book(raw: Raw, index = 0): Raw {
  return (workspace(raw).books as Raw[])[index] as Raw;
}

function channel(raw: Raw, index: number): Raw {
  return (raw.channels as Raw[])[index] as Raw;
}

function problemsOf(change: (raw: Raw) => void): ConfigProblem[] {
  const raw = validRaw();
  change(raw);
  const result = parseConfig(raw);
  if (result.ok) throw new Error('expected the config to be invalid, but it parsed');
  return result.problems;
}

interface Case {
  name: string;
  change: (raw: Raw) => void;
  path: string;
  message: string;
  hint?: string;
}

const cases: Case[] = [
  {
    name: 'a bad ASIN',
    change: (raw) => Object.assign(book(raw), { asin: 'b0cj4xq2z' }),
    path: 'workspaces[0].books[0].asin',
    message: 'expected an ASIN: 10 characters A-Z or 0-9, got "b0cj4xq2z"',
  },
  {
    name: 'a bad marketplace',
    change: (raw) => Object.assign(book(raw), { marketplaces: ['US', 'GB'] }),
    path: 'workspaces[0].books[0].marketplaces[1]',
    message: '"MX" or "AU", got "GB"',
  },
  {
    name: 'an unknown plan',
    change: (raw) => Object.assign(workspace(raw), { plan: 'gold' }),
    path: 'workspaces[0].plan',
    message:
      'expected "studio", "publisher", "custom:PER_MINUTE:PER_MONTH" or {perMinute, perMonth}, got "gold"',
  },
  {
    name: 'a custom plan missing its monthly quota',
    change: (raw) => Object.assign(workspace(raw), { plan: { perMinute: 600 } }),
    path: 'workspaces[0].plan.perMonth',
    message: 'got nothing',
    hint: 'this setting is required',
  },
  {
    name: 'a reserve out of range',
    change: (raw) => Object.assign(workspace(raw), { reserve: 0.95 }),
    path: 'workspaces[0].reserve',
    message: 'expected at most 0.9, got 0.95',
  },
  {
    name: 'a bad time zone',
    change: (raw) => Object.assign(workspace(raw), { timeZone: 'Europe/Atlantis' }),
    path: 'workspaces[0].timeZone',
    message:
      'expected an IANA time zone such as "Europe/Berlin", "America/New_York" or "UTC", got "Europe/Atlantis"',
  },
  {
    name: 'duplicate workspace ids',
    change: (raw) => (raw.workspaces as Raw[]).push({ ...workspace(raw) }),
    path: 'workspaces[1].id',
    message: 'expected a unique workspace id, got "acme" again (first at workspaces[0])',
  },
  {
    name: 'an unknown key, with a did-you-mean hint',
    change: (raw) => Object.assign(book(raw), { autor: 'Jane Doe' }),
    path: 'workspaces[0].books[0].autor',
    message: 'unknown key "autor"',
    hint: 'did you mean "author"?',
  },
  {
    name: 'an unknown top-level key',
    change: (raw) => Object.assign(raw, { channel: [] }),
    path: 'channel',
    message: 'unknown key "channel"',
    hint: 'did you mean "channels"?',
  },
  {
    name: 'an unknown key far from any known one',
    change: (raw) => Object.assign(raw, { zzz: 1 }),
    path: 'zzz',
    message: 'unknown key "zzz"',
    hint: 'known keys: redis, workspaces, rules, channels, routes, digest, server, workers, muteWindows, history, console, alertLog, people',
  },
  {
    name: 'a group window for an unknown alert kind',
    change: (raw) => Object.assign(channel(raw, 0), { groupWindows: { review_neww: { groupWait: '5s' } } }),
    path: 'channels[0].groupWindows.review_neww',
    message: 'unknown key "review_neww"',
    hint: 'did you mean "review_new"?',
  },
  {
    name: 'a group window that is no duration',
    change: (raw) => Object.assign(channel(raw, 0), { groupWindows: { review_new: { groupWait: 'soon' } } }),
    path: 'channels[0].groupWindows.review_new.groupWait',
    message: 'expected a duration such as "90s", "5m", "6h", got "soon"',
  },
  {
    name: 'a route to an unknown channel',
    change: (raw) => Object.assign(raw, { routes: [{ channels: ['log', 'team-slak'] }] }),
    path: 'routes[0].channels[1]',
    message: 'expected the id of a configured channel, got "team-slak"',
    hint: 'did you mean "team-slack"?',
  },
  {
    name: 'a digest recipient in an unknown workspace',
    change: (raw) =>
      Object.assign(raw, { digest: { recipients: [{ workspace: 'other', channel: 'team-mail' }] } }),
    path: 'digest.recipients[0].workspace',
    message: 'expected the id of a configured workspace, got "other"',
    hint: 'known workspaces: acme',
  },
  {
    name: 'a Slack URL that is not https',
    change: (raw) => Object.assign(channel(raw, 1), { webhookUrl: 'http://hooks.slack.com/services/T/B/x' }),
    path: 'channels[1].webhookUrl',
    message: 'expected an https URL, got a URL starting with "http://"',
  },
  {
    name: 'a Slack URL on another host',
    change: (raw) => Object.assign(channel(raw, 1), { webhookUrl: 'https://evil.example.com/hook?t=abc' }),
    path: 'channels[1].webhookUrl',
    message: 'expected a URL on hooks.slack.com, got host "evil.example.com"',
    hint: 'set allowAnyHost: true to post to another host, such as a proxy or a test receiver',
  },
  {
    name: 'a Slack URL that is not a URL (and not repeated: it is a secret)',
    change: (raw) => Object.assign(channel(raw, 1), { webhookUrl: 'hooks.slack.com/secret-token' }),
    path: 'channels[1].webhookUrl',
    message: 'got text that is not a URL',
  },
  {
    name: 'a bad email address',
    change: (raw) => Object.assign(channel(raw, 2), { to: ['a@example.com', 'bob@'] }),
    path: 'channels[2].to[1]',
    message: 'expected an email address such as alerts@example.com, got "bob@"',
  },
  {
    name: 'an SMTP URL with another scheme',
    change: (raw) => Object.assign(channel(raw, 2), { smtpUrl: 'https://mail.example.com' }),
    path: 'channels[2].smtpUrl',
    message: 'expected a URL starting with smtp:// or smtps://',
  },
  {
    name: 'an unknown channel type',
    change: (raw) => (raw.channels as Raw[]).push({ id: 'pigeon', type: 'pigeon' }),
    path: 'channels[3].type',
    // Every registered channel type is offered.
    message: `expected type ${CHANNEL_TYPES}, got "pigeon"`,
  },
  {
    name: 'a bad duration',
    change: (raw) => Object.assign(workspace(raw), { cadence: { reviews: '30 minutes' } }),
    path: 'workspaces[0].cadence.reviews',
    message: 'expected a duration such as "90s", "5m", "6h", got "30 minutes"',
  },
  {
    name: 'a cadence below one second',
    change: (raw) => Object.assign(workspace(raw), { cadence: { book: '500ms' } }),
    path: 'workspaces[0].cadence.book',
    message: 'expected a cadence of at least 1s, got 500',
  },
  {
    name: 'keywords top 0',
    change: (raw) => Object.assign(book(raw), { keywords: { top: 0 } }),
    path: 'workspaces[0].books[0].keywords.top',
    message: 'expected at least 1, got 0',
  },
  {
    name: 'keywords top 1001',
    change: (raw) => Object.assign(book(raw), { keywords: { top: 1001 } }),
    path: 'workspaces[0].books[0].keywords.top',
    message: 'expected at most 1000, got 1001',
  },
  {
    name: 'keywords neither a list nor {top}',
    change: (raw) => Object.assign(book(raw), { keywords: 'cozy mystery' }),
    path: 'workspaces[0].books[0].keywords',
    message: 'expected a list of keywords or {top: N} with N from 1 to 1000, got "cozy mystery"',
  },
  {
    name: 'empty workspaces',
    change: (raw) => Object.assign(raw, { workspaces: [] }),
    path: 'workspaces',
    message: 'expected at least one workspace, got an empty list',
  },
  {
    name: 'no workspaces key at all',
    change: (raw) => delete raw.workspaces,
    path: 'workspaces',
    message: 'expected a list, got nothing',
    hint: 'this setting is required',
  },
  {
    name: 'a workspace id with capitals',
    change: (raw) => Object.assign(workspace(raw), { id: 'Acme' }),
    path: 'workspaces[0].id',
    message: 'lowercase letters, digits and "-"',
  },
  {
    name: 'a Redis prefix starting with ":"',
    change: (raw) => Object.assign(raw, { redis: { prefix: ':shelfwatch' } }),
    path: 'redis.prefix',
    message: 'does not start with ":", got ":shelfwatch"',
  },
  {
    name: 'a port out of range, given as text',
    change: (raw) => Object.assign(raw, { server: { port: '70000' } }),
    path: 'server.port',
    message: 'expected at most 65535, got 70000',
  },
  {
    name: 'a concurrency that is not a number',
    change: (raw) => Object.assign(raw, { workers: { pollConcurrency: 'many' } }),
    path: 'workers.pollConcurrency',
    message: 'expected a whole number from 1 to 256, got "many"',
  },
  {
    name: 'a workspace with nothing to watch',
    change: (raw) => Object.assign(workspace(raw), { books: [], campaigns: [] }),
    path: 'workspaces[0].books',
    message: 'expected something to watch: books, campaigns or sales, got none',
  },
  {
    name: 'the same book twice',
    change: (raw) => (workspace(raw).books as Raw[]).push({ asin: 'B0CJ4XQ2ZK' }),
    path: 'workspaces[0].books[1].asin',
    message: 'expected each book once, got B0CJ4XQ2ZK again (first at books[0])',
  },
  {
    name: 'a rule of an unknown kind',
    change: (raw) => Object.assign(raw, { rules: [{ id: 'x', kind: 'bsr_worse' }] }),
    path: 'rules[0].kind',
    message: 'got "bsr_worse"',
    hint: 'did you mean "bsr_worsened"?',
  },
  {
    name: 'a route matching an unknown alert kind',
    change: (raw) =>
      Object.assign(raw, { routes: [{ match: { kind: ['review_neww'] }, channels: ['log'] }] }),
    path: 'routes[0].match.kind[0]',
    message: 'got "review_neww"',
    hint: 'did you mean "review_new"?',
  },
  {
    name: 'a digest time that is no time of day',
    change: (raw) => Object.assign(raw, { digest: { enabled: false, time: '25:00' } }),
    path: 'digest.time',
    message: 'expected a time of day "HH:MM" (24-hour), such as "08:00", got "25:00"',
  },
];

describe('invalid configs', () => {
  it.each(cases)('$name → $path', ({ change, path, message, hint }) => {
    const problem = problemAt(problemsOf(change), path);
    expect(problem.message).toContain(message);
    if (hint !== undefined) expect(problem.hint).toBe(hint);
  });

  it('collects every problem of a config in one run', () => {
    const problems = problemsOf((raw) => {
      Object.assign(book(raw), { asin: 'bad', marketplaces: ['XX'] });
      Object.assign(workspace(raw), { plan: 'gold', reserve: 2, timeZone: 'Nowhere/City' });
      Object.assign(raw, { routes: [{ channels: ['nope'] }], server: { port: -1 } });
    });
    expect(problems.map((p) => p.path)).toEqual(
      expect.arrayContaining([
        'workspaces[0].books[0].asin',
        'workspaces[0].books[0].marketplaces[0]',
        'workspaces[0].plan',
        'workspaces[0].reserve',
        'workspaces[0].timeZone',
        'routes[0].channels[0]',
        'server.port',
      ]),
    );
  });

  it('never repeats the value of a secret field', () => {
    const problems = problemsOf((raw) => {
      Object.assign(workspace(raw), { apiKey: 12345678 });
      Object.assign(channel(raw, 1), { webhookUrl: 'ftp://hooks.slack.com/T/B/secret-token' });
      Object.assign(channel(raw, 2), { smtpUrl: 'smtp-password-not-a-url' });
    });
    const text = JSON.stringify(problems);
    expect(problemAt(problems, 'workspaces[0].apiKey').message).toBe(
      'expected text, got a value not shown here (secret)',
    );
    expect(text).not.toContain('12345678');
    expect(text).not.toContain('secret-token');
    expect(text).not.toContain('smtp-password');
  });
});
