/**
 * Issue #14 "Done when": `sim --replay` pins a recorded dialect. The folder `probe` recorded from the
 * simulator speaking dialect A is served through the command's own start (startRecordedReplay), and
 * the real `run` process (reconciler, poll and delivery workers on real Redis) reads it through the
 * contract probe suggested plus the edits it could not decide. The polls succeed, the stored
 * snapshots carry the recorded values, and an answer served again unchanged raises no alert.
 *
 * The replay serves the first recording of a request every time, so the answers cannot change
 * between polls: there is no change for the recording to imply. Its reviews answer was recorded
 * without a campaign filter (both campaigns mixed), which a campaign's reviews poll rightly refuses
 * as off topic, so no campaign is watched here.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import { type RecordedReplay, startRecordedReplay } from '../../src/cli/sim-replay.ts';
import type { TargetKind } from '../../src/model/observation.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import { acceleratedClock } from '../../src/util/clock.ts';
import { CapturingNotifier, settings } from '../deliver/pipeline-harness.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';
import { probedContractFile } from './helpers.ts';

const FOLDER = join(import.meta.dirname, 'recorded/dialect-a');
const ASIN = 'B026JLLUDJ';
const TARGETS: { kind: TargetKind; id: string }[] = [
  { kind: 'book', id: `book/${ASIN}/US` },
  { kind: 'keywords', id: `keywords/${ASIN}/US` },
  { kind: 'sales', id: 'sales/US' },
];
/** Polls per target before judging: a baseline, then the same answer compared twice. */
const POLLS = 3;
const prefix = testPrefix('replay-run');
testRedis(prefix);

let served: RecordedReplay;
let runtime: Runtime;
let shutdown: Shutdown;
const capture = new CapturingNotifier('capture');

/** The recorded body of one endpoint, as the JSON file holds it. */
function recorded(endpoint: string): Record<string, unknown> {
  const answer = served.answers.find((a) => (a as { endpoint?: string }).endpoint === endpoint);
  const result = (answer?.body as { result?: Record<string, unknown> } | undefined)?.result;
  if (result === undefined) throw new Error(`no recorded ${endpoint} answer`);
  return result;
}

beforeAll(async () => {
  served = await startRecordedReplay(FOLDER, { host: '127.0.0.1', port: 0 });
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'ws',
        baseUrl: served.replay.url,
        apiKey: 'sk_replay_run_0123456789',
        plan: 'custom:600:100000',
        api: { contract: probedContractFile() },
        books: [{ asin: ASIN, marketplaces: ['US'] }],
        cadence: { book: '1s', keywords: '1s', sales: '1s' },
      },
    ],
    channels: [{ id: 'capture', type: 'log' }],
  });
  runtime = new Runtime({
    config,
    logger: silentLogger(),
    version: 'test',
    // The hour the answers were recorded: the sales window (the last 15 days) holds their rows on
    // whatever day the test runs.
    clock: acceleratedClock(Date.parse('2026-11-25T14:25:08Z'), 1),
    notifiers: new Map([[capture.id, capture]]),
    channelSettings: new Map([[capture.id, settings({ paceKey: capture.id })]]),
  });
  await runtime.connect();
  shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => runtime.close());
  await startWorkers(runtime, shutdown);
}, 30_000);

afterAll(async () => {
  await shutdown?.run(5_000);
  await served?.replay.close();
});

describe('run against a replayed recording (dialect A through the probed contract)', () => {
  it('polls ok, stores the recorded values, and raises no alert for the same answer again', async () => {
    const stored = (kind: TargetKind, id: string) => runtime.store.get({ workspace: 'ws', kind, id });
    const failing = async () => {
      for (const { kind, id } of TARGETS) {
        const health = await runtime.store.getHealth({ workspace: 'ws', kind, id });
        if (health.lastOutcome === 'error' || health.lastOutcome === 'no_data')
          throw new Error(`${id}: ${health.lastOutcome}: ${health.lastError}`);
      }
    };
    await waitFor(
      `${POLLS} ok polls of each target`,
      async () => {
        // A failing poll ends the wait at once with its error, rather than at the deadline.
        await failing();
        const seqs = await Promise.all(TARGETS.map(async (t) => (await stored(t.kind, t.id))?.pollSeq ?? 0));
        return seqs.every((seq) => seq >= POLLS);
      },
      30_000,
    );
    for (const { kind, id } of TARGETS) {
      const health = await runtime.store.getHealth({ workspace: 'ws', kind, id });
      expect(health, id).toMatchObject({ lastOutcome: 'ok', consecutiveFailures: 0, lastError: null });
    }
    // Every request was answered from the recording (none fell through to the replay's 404).
    expect(served.replay.served.length).toBeGreaterThanOrEqual(POLLS * TARGETS.length);
    expect(served.replay.served.filter((s) => s.answer < 0)).toEqual([]);

    const book = recorded('book') as {
      titleText: string;
      salesRank: { current: number; categoryName: string; observedAt: number };
      comparables: { productId: string; salesRank: number }[];
      reviewSummary: { averageStars: number; count: number };
    };
    const bookSnapshot = (await stored('book', `book/${ASIN}/US`))?.observation;
    expect(bookSnapshot).toMatchObject({
      kind: 'book',
      asin: ASIN,
      marketplace: 'US',
      title: book.titleText,
      bsr: book.salesRank.current,
      bsrCategory: book.salesRank.categoryName,
      observedAt: book.salesRank.observedAt * 1000,
      reviewCount: book.reviewSummary.count,
      averageRating: book.reviewSummary.averageStars,
    });
    expect(bookSnapshot?.kind === 'book' ? bookSnapshot.compTitles?.[0] : undefined).toMatchObject({
      asin: book.comparables[0]?.productId,
      bsr: book.comparables[0]?.salesRank,
    });

    const keywords = (recorded('bookKeywords') as { keywords: { term: string; position: number }[] })
      .keywords;
    const keywordsSnapshot = (await stored('keywords', `keywords/${ASIN}/US`))?.observation;
    expect(keywordsSnapshot?.kind === 'keywords' ? keywordsSnapshot.ranks : []).toEqual(
      keywords.map((k) => ({ keyword: k.term, rank: k.position })),
    );

    const rows = (
      recorded('sales') as {
        rows: {
          productId: string;
          day: string;
          netUnits: number;
          royaltiesMinor: number;
          currencyCode: string;
        }[];
      }
    ).rows;
    const salesSnapshot = (await stored('sales', 'sales/US'))?.observation;
    const days = salesSnapshot?.kind === 'sales' ? salesSnapshot.days : [];
    expect(days).toHaveLength(rows.length);
    const first = rows[0];
    expect(days.find((d) => d.asin === first?.productId && d.date === first?.day.slice(0, 10))).toMatchObject(
      {
        units: first?.netUnits,
        royalties: { minor: first?.royaltiesMinor, currency: first?.currencyCode },
      },
    );

    // The same answer, read again and again: nothing changed, so nothing was alerted (not even
    // queued for delivery: the alert log records every alert handed to it).
    expect(await runtime.alertLog.size()).toBe(0);
    expect(capture.alertCount()).toBe(0);
  }, 60_000);
});
