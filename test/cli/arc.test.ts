import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInvites } from '../../src/arc/invite-counts.ts';
import type { RowResult } from '../../src/arc/report.ts';
import { tempDir, writeFile } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';

const KEY = 'sk_arc_cli_test_0123456789';
const prefix = testPrefix('arc-cli');
const redis = testRedis(prefix);
const dir = tempDir();
let config: string;
let campaign: string;

/**
 * A spreadsheet export: BOM, CRLF, columns in another order, quoting (a line break inside row 4),
 * and rows that must not be sent.
 */
const READERS = [
  '\uFEFFName,Notes,Email',
  '"Doe, Jane","said ""yes""",jane@example.com',
  'Bob,,bob@example.com',
  '"Multi',
  'Line",,multi@example.com',
  'Nobody,,not-an-email',
  ',,noname@example.com',
  'Jane Again,,JANE@example.com',
  '',
].join('\r\n');

interface Printed {
  batches: { number: number; idempotencyKey: string; readers: number; status: string }[];
  rows: RowResult[];
  summary: Record<string, number>;
}

const fx = useSimulator({
  seed: 11,
  books: 2,
  key: KEY,
  workspace: 'sim-arc-cli',
  plan: 'custom:1000:1000000',
});

beforeAll(async () => {
  campaign = fx.world.campaigns[0]?.campaign_id ?? '';
  config = writeConfig(dir, 'arc.yaml', {
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'acme',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:1000:1000000',
        campaigns: [{ id: campaign }],
      },
    ],
  });
  writeFile(dir, 'readers.csv', READERS);
});

afterAll(async () => {});

async function invitePosts(sinceSeq: number) {
  return (await fx.control.requestsSince(sinceSeq)).filter((r) => r.path === '/v1/arc/invites');
}

function invite(...extra: string[]) {
  return shelfwatch([
    'arc',
    'invite',
    '--campaign',
    campaign,
    '--csv',
    `${dir}/readers.csv`,
    '--config',
    config,
    ...extra,
  ]);
}

const INVALID = [
  { row: 5, email: 'not-an-email', status: 'invalid', reason: 'not an email address' },
  { row: 6, email: 'noname@example.com', status: 'invalid', reason: 'missing name' },
  { row: 7, email: 'JANE@example.com', status: 'invalid', reason: 'duplicate of row 2' },
];

describe('shelfwatch arc invite', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('--dry-run checks the file and shows the batch without sending anything', async () => {
    const seq = await fx.control.lastSeq();
    const outcome = await invite('--dry-run');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(
      'dry run: 3 valid readers in 1 batch (1 request), 3 invalid rows; nothing was sent',
    );
    expect(outcome.stdout).toMatch(
      /\n\s+1\s+3\s+bob@example\.com … multi@example\.com\s+dry run\s+shelfwatch-arc-[0-9a-f]{40}\n/,
    );
    expect(outcome.stdout).toMatch(/\n\s+5\s+not-an-email\s+invalid\s+not an email address\n/);
    expect(await invitePosts(seq)).toEqual([]);
    expect(await readInvites(redis, prefix, 'acme', campaign)).toBeNull();
  });

  it('invites the valid rows once; a re-run gets the same ids back and invites nobody twice', async () => {
    const seq = await fx.control.lastSeq();
    const first = await invite('--json', '--message', 'Thanks for reading!');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const run1 = JSON.parse(first.stdout) as Printed;
    expect(run1.rows.filter((r) => r.status === 'invalid')).toEqual(INVALID);
    const invited = run1.rows.filter((r) => r.status === 'invited');
    expect(invited.map((r) => [r.row, r.email])).toEqual([
      [2, 'jane@example.com'],
      [3, 'bob@example.com'],
      [4, 'multi@example.com'],
    ]);
    for (const r of invited) expect(r.inviteId).toMatch(/^inv_/);
    expect(run1.summary).toMatchObject({ invited: 3, alreadyInvited: 0, invalid: 3, notSent: 0 });
    expect((await invitePosts(seq)).map((r) => [r.method, r.status])).toEqual([['POST', 201]]);
    expect(await readInvites(redis, prefix, 'acme', campaign)).toBe(3);

    const seq2 = await fx.control.lastSeq();
    const again = await invite('--json', '--message', 'Thanks for reading!');
    expect(again.code).toBe(0);
    const run2 = JSON.parse(again.stdout) as Printed;
    expect(run2.batches.map((b) => b.idempotencyKey)).toEqual(run1.batches.map((b) => b.idempotencyKey));
    expect(run2.rows.filter((r) => r.status !== 'invalid').map((r) => [r.row, r.status, r.inviteId])).toEqual(
      invited.map((r) => [r.row, 'already_invited', r.inviteId]),
    );
    expect(run2.summary).toMatchObject({ invited: 0, alreadyInvited: 3 });
    expect(await invitePosts(seq2)).toHaveLength(1);
    // The digest's count did not move: these readers were counted by the first run.
    expect(await readInvites(redis, prefix, 'acme', campaign)).toBe(3);
  });

  it('prints a per-row table and a summary line', async () => {
    const outcome = await invite('--message', 'Thanks for reading!');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(
      /\n\s+2\s+jane@example\.com\s+already_invited\s+inv_\w+\s+invited by an earlier run\n/,
    );
    expect(outcome.stdout).toMatch(/\n\s+7\s+JANE@example\.com\s+invalid\s+duplicate of row 2\n/);
    expect(outcome.stdout.trimEnd().split('\n').at(-1)).toBe(
      '0 invited, 3 already invited, 3 invalid, 0 not sent — 1 of 1 batch sent',
    );
  });

  it('says why a batch was not sent and exits 1: the same readers with another message (409)', async () => {
    const outcome = await invite('--message', 'A different message');
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(/\n\s+3\s+bob@example\.com\s+not_sent\s+the API refused \(409\)/);
    expect(outcome.stderr).toBe('shelfwatch: 3 readers not sent: see the reasons above\n');
  });

  it('exits 2 with one line for a missing file, a file without the columns, or a missing flag', async () => {
    const noColumns = writeFile(dir, 'bad.csv', 'contact,who\na@b.co,A\n');
    const command = (campaignFlags: string[], csv: string) =>
      shelfwatch(['arc', 'invite', ...campaignFlags, '--csv', csv, '--config', config]);
    const [missing, bad, flag] = await Promise.all([
      command(['--campaign', campaign], `${dir}/nope.csv`),
      command(['--campaign', campaign], noColumns),
      command([], noColumns),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`shelfwatch: --csv: cannot read ${dir}/nope.csv: no such file\n`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      `shelfwatch: ${noColumns}: line 1: the header row needs an email and a name column; found "contact", "who" (name them with --column email="…" --column name="…")\n`,
    );
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe("shelfwatch: required option '--campaign <id>' not specified (see --help)\n");
  });

  it('reads a Mailchimp export from stdin (--csv -): "Email Address", "First Name" + "Last Name"', async () => {
    const mailchimp =
      'Email Address,First Name,Last Name,MEMBER_RATING\nann@example.com,Ann,Lee,2\nbo@example.com,Bo,,1\n';
    const args = [
      'arc',
      'invite',
      '--campaign',
      campaign,
      '--csv',
      '-',
      '--dry-run',
      '--json',
      '--config',
      config,
    ];
    const outcome = await shelfwatch(args, {}, 30_000, mailchimp);
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    const run = JSON.parse(outcome.stdout) as Printed;
    expect(run.rows.map((r) => [r.row, r.email, r.status])).toEqual([
      [2, 'ann@example.com', 'not_sent'],
      [3, 'bo@example.com', 'not_sent'],
    ]);
  });

  it('refuses --config - with --csv - (both would read stdin): one line, exit 2', async () => {
    const args = ['arc', 'invite', '--campaign', campaign, '--csv', '-', '--dry-run', '--config', '-'];
    const outcome = await shelfwatch(args, {}, 30_000, 'email,name\nann@example.com,Ann\n');
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toBe(
      'shelfwatch: --config - and --csv - both read stdin: give one of them a file\n',
    );
  });

  it('--column names the columns; a bad --column is one line, exit 2', async () => {
    const odd = writeFile(dir, 'odd.csv', 'Contact;Reader\nann@example.com;Ann\n');
    const command = (...columns: string[]) =>
      shelfwatch([
        'arc',
        'invite',
        '--campaign',
        campaign,
        '--csv',
        odd,
        '--dry-run',
        ...columns,
        '--config',
        config,
      ]);
    const [named, badFlag, noSuch] = await Promise.all([
      command('--column', 'email=Contact', '--column', 'name=Reader'),
      command('--column', 'mail=Contact'),
      command('--column', 'email=Kontakt', '--column', 'name=Reader'),
    ]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain('dry run: 1 valid reader in 1 batch');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toBe(
      'shelfwatch: --column expects email=TITLE or name=TITLE, e.g. email="Email Address", got "mail=Contact"\n',
    );
    expect(noSuch.code).toBe(2);
    expect(noSuch.stderr).toBe(
      `shelfwatch: ${odd}: line 1: --column email="Kontakt": no such column; found "Contact", "Reader"\n`,
    );
  });

  it('stops at once on an unknown campaign (404): one line naming the known ones, exit 2', async () => {
    const seq = await fx.control.lastSeq();
    const outcome = await shelfwatch([
      'arc',
      'invite',
      '--campaign',
      'arc_no_such_campaign',
      '--csv',
      `${dir}/readers.csv`,
      '--config',
      config,
    ]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
    expect(outcome.stderr).toContain(
      'the API knows no ARC campaign "arc_no_such_campaign" (404); nothing was sent',
    );
    expect(outcome.stderr).toContain(`workspace "acme" watches ${campaign}`);
    expect(outcome.stderr).not.toContain('run the same command again');
    expect(await invitePosts(seq)).toHaveLength(1);
  });
});
