/**
 * A contract file that cannot be right is refused before anything runs: each problem names the
 * file, the place in it and the fix; `validate` exits 2. And the formats read what they promise.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FAIL,
  numberFromText,
  readAmount,
  readDate,
  readRank,
  readTime,
} from '../../src/api/contract/formats.ts';
import { linkNext } from '../../src/api/contract/paging.ts';
import { parseContract } from '../../src/api/index.ts';
import { loadConfig } from '../../src/config/load.ts';
import { tempDir, writeFile } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch } from '../helpers/cli.ts';

function problems(raw: unknown) {
  const load = parseContract(raw, 'my-contract.yaml');
  if (load.ok) throw new Error('expected the contract to be refused');
  return load.problems;
}

describe('a contract file that cannot be right', () => {
  it('an unknown logical field, with the one meant', () => {
    expect(problems({ endpoints: { book: { fields: { bsrRnk: 'rank' } } } })).toEqual([
      {
        path: 'endpoints.book.fields.bsrRnk',
        message: 'unknown logical field "bsrRnk"',
        hint: 'did you mean "bsrRank"?',
      },
    ]);
  });

  it('a format we do not know', () => {
    expect(
      problems({ endpoints: { book: { fields: { observedAt: { path: 't', format: 'epoch_sec' } } } } }),
    ).toEqual([
      {
        path: 'endpoints.book.fields.observedAt.format',
        message: 'unknown format "epoch_sec" for time field "observedAt"',
        hint: 'use one of iso, epoch_s, epoch_ms, epoch_min (did you mean "epoch_s"?)',
      },
    ]);
  });

  it('two pagination styles at once', () => {
    const found = problems({ pagination: { cursor: { param: 'c', next: 'n' }, page: { param: 'page' } } });
    expect(found).toEqual([
      expect.objectContaining({
        path: 'pagination',
        message: 'two pagination styles at once: cursor and page',
      }),
    ]);
  });

  it('a path that cannot exist: a value and another value inside it', () => {
    const found = problems({ endpoints: { book: { fields: { bsrCategory: 'bsr' } } } });
    expect(found[0]).toMatchObject({
      path: 'endpoints.book.fields.bsrRank.path',
      message: '"bsr.rank" cannot exist: "bsrCategory" is a single value at "bsr"',
    });
  });

  it('an unknown key, with the one meant', () => {
    expect(problems({ paginaton: {} })[0]).toMatchObject({
      path: 'paginaton',
      hint: 'did you mean "pagination"?',
    });
  });

  it('is a validate (and sim --contract) error naming the file and the place in it (exit 2)', {
    timeout: CLI_TEST_TIMEOUT_MS,
  }, async () => {
    const dir = tempDir();
    writeFile(dir, 'api.yaml', 'endpoints:\n  book:\n    fields:\n      bsrRnk: rank\n');
    const config = writeFile(
      dir,
      'shelfwatch.yaml',
      JSON.stringify({
        workspaces: [
          {
            id: 'ws',
            baseUrl: 'http://127.0.0.1:1',
            apiKey: 'sk_x_0123456789',
            api: { contract: './api.yaml' },
            books: [{ asin: 'B000000001' }],
          },
        ],
      }),
    );
    const loaded = loadConfig({ path: config, env: {} });
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) {
      expect(loaded.problems[0]).toMatchObject({
        path: 'workspaces[0].api.contract',
        message: `${join(dir, 'api.yaml')}: endpoints.book.fields.bsrRnk: unknown logical field "bsrRnk"`,
        hint: 'did you mean "bsrRank"?',
      });
    }
    const [outcome, sim] = await Promise.all([
      shelfwatch(['validate', '--config', config]),
      shelfwatch(['sim', '--port', '0', '--contract', join(dir, 'api.yaml')]),
    ]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr + outcome.stdout).toContain('endpoints.book.fields.bsrRnk');
    // The simulator refuses the same file the same way, before it listens.
    expect(sim.code).toBe(2);
    expect(sim.stderr).toContain(
      `${join(dir, 'api.yaml')}: endpoints.book.fields.bsrRnk: unknown logical field`,
    );
  });
});

describe('formats', () => {
  it('times: ISO 8601 with any offset, epoch seconds and milliseconds, all to UTC', () => {
    expect(readTime('iso')('2026-11-20T14:00:00+02:00')).toBe('2026-11-20T12:00:00Z');
    expect(readTime('iso')('2026-11-20T12:00:00Z')).toBe('2026-11-20T12:00:00Z');
    expect(readTime('iso')('yesterday')).toBe(FAIL);
    expect(readTime('epoch_s')(1_795_176_000)).toBe('2026-11-20T12:00:00Z');
    expect(readTime('epoch_ms')(1_795_176_000_500)).toBe('2026-11-20T12:00:00.500Z');
    expect(readTime('epoch_s')('1795176000')).toBe(FAIL);
    expect(readDate('epoch_s')(1_795_176_000)).toBe('2026-11-20');
    expect(readDate('iso')('2026-11-20T23:30:00-02:00')).toBe('2026-11-21');
  });

  it('money: decimal strings, major units and integer minor units by currency', () => {
    expect(readAmount('decimal_string')('-87.12', 'USD')).toBe('-87.12');
    expect(readAmount('major_number')(28.1, 'USD')).toBe('28.10');
    expect(readAmount('minor_units')(2819, 'USD')).toBe('28.19');
    expect(readAmount('minor_units')(-5, 'EUR')).toBe('-0.05');
    expect(readAmount('minor_units')(1500, 'JPY')).toBe('1500');
    expect(readAmount('minor_units')(28.19, 'USD')).toBe(FAIL);
  });

  it('numbers as text, with format: string', () => {
    expect(readRank([-1], 'string').read('2541')).toBe(2541);
    expect(readRank([-1], 'string').read('-1')).toBeNull();
    expect(readRank([-1], 'string').read('n/a')).toBe(FAIL);
    expect(numberFromText('1200')).toBe(1200);
    expect(numberFromText(1200)).toBe(FAIL);
  });

  it('unranked: null, 0, a sentinel or a missing field, as listed', () => {
    const rank = readRank([0, -1, 'missing']);
    expect([rank.read(0), rank.read(-1), rank.read(17), rank.read('17'), rank.missingIsNone]).toEqual([
      null,
      null,
      17,
      FAIL,
      true,
    ]);
    expect(readRank([null]).read(0)).toBe(0); // 0 is then an (invalid) rank for zod to refuse, not "none"
  });

  it('an RFC 8288 Link header: the rel="next" target among others', () => {
    expect(linkNext('<https://a.test/p?page=1>; rel="prev", <https://a.test/p?page=3>; rel="next"')).toBe(
      'https://a.test/p?page=3',
    );
    expect(linkNext('<https://a.test/x>; rel="last"')).toBeUndefined();
    expect(linkNext(undefined)).toBeUndefined();
  });
});
