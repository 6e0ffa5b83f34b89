/**
 * `shelfwatch init` reads the account's lists whole: a world with more books than one page of
 * `/v1/rankings` holds (100 series at most, 10 tracked keywords a book) and more ARC reviews than
 * one page of `/v1/arc/reviews`, in the default dialect (cursors), in dialect A (Link headers, read
 * loosely until the contract's edits are made) and in dialect B, both through its contract file given with
 * `--contract` and through probe's suggestion (page numbers, which probe reads from the body). Every ASIN and campaign is in the written
 * config, `validate` accepts it and init's offline plan covers it, and the requests init says it spent are those the
 * simulator answered.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { tempDir } from '../config/helpers.ts';
import { allDialects, type Dialect } from '../contract/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch } from '../helpers/cli.ts';
import { startSimFixture } from '../helpers/sim.ts';

const KEY = 'sk_init_pages_0123456789';
/** 12 books of 10 tracked keywords: 120 ranking series, two pages of 100. */
const BOOKS = 12;
/** Enough reviews, within days of the campaigns' start, for more than one page of 100. */
const CAMPAIGNS = 6;

interface Written {
  workspaces: { api?: { contract: string }; books: { asin: string }[]; campaigns: { id: string }[] }[];
}

async function initAgainst(dialect: Dialect | undefined, extraArgs: readonly string[]) {
  const sim = await startSimFixture({
    seed: 9,
    books: BOOKS,
    campaigns: CAMPAIGNS,
    key: KEY,
    workspace: 'main',
    plan: 'custom:1000:1000000',
    ...(dialect?.sim === undefined ? {} : { dialect: dialect.sim }),
  });
  try {
    const dir = tempDir();
    const file = join(dir, 'shelfwatch.yaml');
    const outcome = await shelfwatch(['init', '--base-url', sim.url, '--out', file, ...extraArgs], {
      PUBLISHING_API_KEY: KEY,
    });
    const requests = await sim.control.requestsSince(0);
    const world = await sim.control.world();
    return { file, outcome, requests, world };
  } finally {
    await sim.close();
  }
}

describe('shelfwatch init on an account longer than a page', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const dialectB = allDialects().find((d) => d.name === 'dialect-b');
  it.each([
    ['default', undefined, []],
    ['dialect-a', allDialects().find((d) => d.name === 'dialect-a'), []],
    // Page numbers, read through the contract file the user wrote.
    ['dialect-b with --contract', dialectB, ['--contract', dialectB?.file ?? '']],
  ] as const)('%s: every book and campaign, every request counted', async (_name, dialect, extraArgs) => {
    const { file, outcome, requests, world } = await initAgainst(dialect, extraArgs);
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    // The world is longer than one page of each list, so one page could not have named it all.
    const pagesOf = (path: string) => requests.filter((r) => r.path.startsWith(path)).length;
    expect(pagesOf('/v1/rankings')).toBeGreaterThanOrEqual(2);
    expect(pagesOf('/v1/arc/reviews')).toBeGreaterThanOrEqual(2);
    // Every refusal is the probe trying a parameter name the API does not take (a 400 naming it).
    expect(requests.filter((r) => r.status !== 200).every((r) => r.status === 400)).toBe(true);
    // What it says it spent is what the service answered.
    const spent = /init: (\d+) requests in all \((\d+) to probe, (\d+) for the lists\)/.exec(outcome.stdout);
    expect(spent?.[1]).toBe(String(requests.length));
    expect(Number(spent?.[2]) + Number(spent?.[3])).toBe(requests.length);
    expect(Number(spent?.[2])).toBeLessThanOrEqual(30);
    expect(outcome.stdout).toMatch(/^books: \d+ pages of GET \/v1\/rankings \(\d+ more requests?\)$/m);

    const written = parseYaml(readFileSync(file, 'utf8')) as Written;
    const ws = written.workspaces[0];
    if (extraArgs.length > 0)
      expect(resolve(dirname(file), ws?.api?.contract ?? '')).toBe(resolve(dialectB?.file ?? '-'));
    expect(ws?.books.map((b) => b.asin).sort()).toEqual(world.books.map((b) => b.asin).sort());
    expect(world.campaigns).toHaveLength(CAMPAIGNS);
    expect(ws?.campaigns.map((c) => c.id).sort()).toEqual(world.campaigns.map((c) => c.campaign_id).sort());
    expect(outcome.stdout).toContain(`Wrote ${file}: ${BOOKS} books, ${CAMPAIGNS} ARC campaigns`);

    // The written config as the user gets it: validate accepts it, and the offline plan init
    // printed (plan --offline's own computation) has a target for the books of the last page.
    const validate = await shelfwatch(['validate', '--config', file], { PUBLISHING_API_KEY: KEY });
    // Notes (a console without mute links) are advice, not problems of what init wrote.
    expect(validate.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('shelfwatch: note:'))).toEqual(
      [],
    );
    expect(validate.code).toBe(0);
    expect(outcome.stdout).toContain('plan (offline) for workspace main');
    for (const book of world.books.slice(-2)) expect(outcome.stdout).toContain(`book/${book.asin}/`);
  });

  it('dialect-b without its contract: the page numbers its answers carry are followed to the last page', async () => {
    // probe reads page numbers and totals from the body (meta.page, meta.total_pages), so the
    // suggested contract walks the list: every book, where one page used to name 10 of 12.
    const { outcome, world } = await initAgainst(dialectB, []);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('pagination: page numbers seen in the body');
    expect(outcome.stdout).toMatch(/^books: 2 pages of GET \/v1\/rankings \(2 more requests\)$/m);
    expect(outcome.stdout).toMatch(new RegExp(`: ${BOOKS} books,`));
    expect(world.books).toHaveLength(BOOKS);
  });
});
