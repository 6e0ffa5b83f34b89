/**
 * `sim --replay` pins a recorded dialect: the answers `probe` recorded from the simulator speaking
 * dialect A (test/contract/recorded/dialect-a, lists cut to 8 items) are served as they are and read
 * through the contract probe suggested plus the edits it could not decide. A malformed file is named.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  collectAll,
  createAnalyticsClient,
  loadContractFile,
} from '../../src/api/index.ts';
import { matchAnswer, type RunningReplay, startReplay } from '../../src/sim/replay.ts';
import { readRecording } from '../../src/tools/probe/probe-record.ts';
import { tempDir } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch } from '../helpers/cli.ts';
import { probedContractFile } from './helpers.ts';

const FOLDER = join(import.meta.dirname, 'recorded/dialect-a');
const ASIN = 'B026JLLUDJ';
let replay: RunningReplay;
let client: AnalyticsClient;

beforeAll(async () => {
  replay = await startReplay(readRecording(FOLDER));
  const load = loadContractFile(probedContractFile());
  if (!load.ok) throw new Error(JSON.stringify(load.problems));
  client = createAnalyticsClient({
    baseUrl: replay.url,
    apiKey: 'sk_any_0123456789',
    contract: load.contract,
  });
});

afterAll(async () => {
  await replay?.close();
});

describe('sim --replay of a probe folder (dialect A)', () => {
  it('serves each recorded answer, read through the suggested contract', async () => {
    const book = (await client.getBook(ASIN)).data;
    expect(book.asin).toBe(ASIN);
    expect(book.marketplace).toBe('US');
    expect(typeof book.bsr.rank === 'number' || book.bsr.rank === null).toBe(true);
    expect(book.organic_keywords.length).toBeGreaterThan(0);
    const keywords = (await client.getBookKeywords(ASIN)).data;
    expect(keywords.asin).toBe(ASIN);
    expect(keywords.data).toHaveLength(8);
    const reviews = await collectAll(client.listArcReviews({ limit: 100 }), { maxPages: 1 });
    expect(reviews.items).toHaveLength(8);
    expect(reviews.items.map((r) => r.platform)).toContain('amazon');
    const sales = await collectAll(client.listSales({ from: '2026-11-18', to: '2026-11-25', limit: 100 }), {
      maxPages: 1,
    });
    expect(sales.items[0]?.royalties?.currency).toMatch(/^[A-Z]{3}$/);
    const rankings = await collectAll(client.getRankings({ limit: 100 }), { maxPages: 1 });
    expect(rankings.items.length).toBeGreaterThan(0);
    expect(rankings.items.every((s) => s.points.length > 0)).toBe(true);
  });

  it('answers deterministically: exact query first, then the path; a page pointer it gave out is not served again', () => {
    const answers = readRecording(FOLDER);
    expect(matchAnswer(answers, 'GET', '/v1/rankings?limit=100')).toBe(0);
    expect(matchAnswer(answers, 'GET', '/v1/rankings?productId=B026JLLUDJ&term=x')).toBe(0);
    expect(matchAnswer(answers, 'GET', '/v1/books/B000000000')).toBe(-1);
    const search = answers.findIndex((a) => a.endpoint === 'keywordSearch');
    const cursor = /cursor=([^>&]+)/.exec(answers[search]?.headers.link ?? '')?.[1] ?? '';
    expect(cursor).not.toBe('');
    expect(matchAnswer(answers, 'GET', `/v1/keywords/search?q=book&limit=100&cursor=${cursor}`)).toBe(-1);
  });

  it('a malformed file: one line naming it, exit 2', { timeout: CLI_TEST_TIMEOUT_MS }, async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, '01-book.json'),
      JSON.stringify({
        endpoint: 'book',
        method: 'GET',
        path: '/v1/books/B0X',
        status: 'ok',
        headers: {},
        body: {},
      }),
    );
    const outcome = await shelfwatch(['sim', '--replay', dir, '--port', '0']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe(
      `shelfwatch: --replay: ${join(dir, '01-book.json')}: "status" must be an HTTP status (100..599)\n`,
    );
  });
});
