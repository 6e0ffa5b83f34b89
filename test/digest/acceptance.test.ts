/**
 * The acceptance test: for a fixed simulator seed and day, the digest's figures equal what a hand
 * computation from the simulator's raw `/v1/sales` answers gives, for recipients on both sides of
 * a daylight-saving change (Europe/Berlin on 2026-10-25, America/New_York on 2026-11-01, both
 * 25-hour local days). A few numbers are also written down, checked by hand from the raw rows, so
 * a silent change in the simulator or in the maths fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordInvites } from '../../src/arc/invite-counts.ts';
import { type BuiltDigest, buildDigest, type DigestRecipient } from '../../src/digest/build.ts';
import { deliverDigest } from '../../src/digest/send.ts';
import type { DigestFigures, SalesSection } from '../../src/digest/types.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { type RawSale, type Scenario, startScenario, WORKSPACE } from './sim-scenario.ts';

/** "295.17" → 29517, "835" → 835: one currency's amounts all carry the same number of decimals. */
function minorOf(amount: string): number {
  const [whole = '', fraction = ''] = amount.split('.');
  return Number(`${whole}${fraction}`);
}

interface Expected {
  royalties: number;
  units: number;
  adSpend: number;
}

/** Per currency: the day's and the week's sums, computed from the raw rows. */
function handTotals(
  raw: readonly RawSale[],
  day: string,
  weekFrom: string,
): Map<string, { day: Expected; week: Expected }> {
  const totals = new Map<string, { day: Expected; week: Expected }>();
  for (const r of raw) {
    const t = totals.get(r.royalties.currency) ?? {
      day: { royalties: 0, units: 0, adSpend: 0 },
      week: { royalties: 0, units: 0, adSpend: 0 },
    };
    for (const [bucket, inside] of [
      [t.day, r.date === day],
      [t.week, r.date >= weekFrom && r.date <= day],
    ] as const) {
      if (!inside) continue;
      bucket.royalties += minorOf(r.royalties.amount);
      bucket.units += r.units;
      bucket.adSpend += minorOf(r.ad_spend.amount);
    }
    totals.set(r.royalties.currency, t);
  }
  return totals;
}

function okSales(f: DigestFigures): Extract<SalesSection, { status: 'ok' }> {
  if (f.sales.status !== 'ok') throw new Error(`sales ${f.sales.status}: ${JSON.stringify(f.sales)}`);
  return f.sales;
}

function checkAgainstRaw(built: BuiltDigest, raw: readonly RawSale[], day: string, weekFrom: string): void {
  const sales = okSales(built.figures);
  const expected = handTotals(raw, day, weekFrom);
  expect(sales.totals.map((t) => t.currency)).toEqual([...expected.keys()].sort());
  for (const t of sales.totals) {
    const want = expected.get(t.currency);
    expect([t.yesterday?.royalties, t.yesterday?.units, t.yesterday?.adSpend, t.yesterday?.net]).toEqual([
      want?.day.royalties,
      want?.day.units,
      want?.day.adSpend,
      (want?.day.royalties ?? 0) - (want?.day.adSpend ?? 0),
    ]);
    expect([t.week?.royalties, t.week?.units, t.week?.adSpend]).toEqual([
      want?.week.royalties,
      want?.week.units,
      want?.week.adSpend,
    ]);
  }
  const rawDay = raw.filter((r) => r.date === day);
  expect(sales.pairs).toHaveLength(rawDay.length);
  for (const r of rawDay) {
    const pair = sales.pairs.find((p) => p.asin === r.asin && p.marketplace === r.marketplace);
    expect([pair?.yesterday?.units, pair?.yesterday?.royalties]).toEqual([
      r.units,
      minorOf(r.royalties.amount),
    ]);
  }
  expect(sales.missingYesterday).toEqual([]);
}

/** The median of the hourly ranks of the raw book answer inside [start, end), by hand. */
function handMedian(history: { at: string; rank: number | null }[], startMs: number, endMs: number) {
  const ranks = history
    .filter((p) => Date.parse(p.at) >= startMs && Date.parse(p.at) < endMs && p.rank !== null)
    .map((p) => p.rank as number)
    .sort((a, b) => a - b);
  const mid = ranks.length >> 1;
  const median = ranks.length % 2 === 1 ? ranks[mid] : ((ranks[mid - 1] ?? 0) + (ranks[mid] ?? 0)) / 2;
  return { count: ranks.length, median };
}

const prefix = testPrefix('digest-accept');
const redis = testRedis(prefix);
const outbox = mkdtempSync(join(tmpdir(), 'shelfwatch-digest-accept-'));
afterAll(() => rmSync(outbox, { recursive: true, force: true }));

describe('digest acceptance: Europe/Berlin, Sun 25 Oct 2026 (a 25-hour day)', () => {
  let s: Scenario;
  const recipient: DigestRecipient = { workspace: WORKSPACE, channel: 'box', timeZone: 'Europe/Berlin' };
  let first: BuiltDigest;
  let raw: RawSale[];
  let digestRequests = 0;

  beforeAll(async () => {
    s = await startScenario({
      startAt: '2026-10-26T07:30:00Z',
      timeZone: 'Europe/Berlin',
      redis,
      prefix: `${prefix}berlin`,
      channels: [{ id: 'box', type: 'outbox', dir: outbox }],
      recipients: [recipient],
    });
    await recordInvites(redis, `${prefix}berlin`, WORKSPACE, s.campaigns[0] ?? '', 12);
    await s.pollAll();
    const usedBefore = (await s.deps.budget.usage(WORKSPACE)).monthUsed;
    first = await buildDigest(s.deps, { workspace: WORKSPACE, recipient, nowMs: s.sim.clock.now() });
    digestRequests = (await s.deps.budget.usage(WORKSPACE)).monthUsed - usedBefore;
    raw = await s.rawSales('2026-10-18', '2026-10-25');
  });
  afterAll(() => s?.close());

  it('reports the local yesterday, 25 hours long, with the sales the raw API answers add up to', () => {
    expect(first.figures.day).toBe('2026-10-25');
    expect(first.figures.dayHours).toBe(25);
    checkAgainstRaw(first, raw, '2026-10-25', '2026-10-19');
  });

  it('matches the hand-checked numbers', () => {
    const sales = okSales(first.figures);
    const usd = sales.totals.find((t) => t.currency === 'USD')?.yesterday;
    expect([usd?.royalties, usd?.units, usd?.adSpend, usd?.net]).toEqual([29_517, 81, 3_684, 25_833]);
    expect(sales.totals.find((t) => t.currency === 'BRL')?.yesterday?.royalties).toBe(9_691);
    expect(sales.totals.find((t) => t.currency === 'JPY')?.yesterday?.royalties).toBe(835);
    expect(sales.pairs.find((p) => p.asin === 'B0IB4A0LFL' && p.marketplace === 'US')?.yesterday?.units).toBe(
      21,
    );
    expect(first.subject).toMatch(
      /^Daily digest for acme — Sun 25 Oct: 96\.91 BRL \+ 7\.10 EUR \+ 6\.24 GBP \+ 835 JPY \+ 295\.17 USD royalties, \d+ new reviews?$/,
    );
    expect(first.text).toMatch(
      /Royalties +295\.17 USD†? .*\n +Units +81†? .*\n +Ad spend +36\.84 USD†? .*\n +Net +258\.33 USD†? /,
    );
    expect(first.text).toContain('(Europe/Berlin) — a 25-hour day: the clocks went back');
  });

  it('takes BSR medians over the 25 local hours, as the raw history gives them', async () => {
    const dayStart = Date.UTC(2026, 9, 24, 22);
    const dayEnd = Date.UTC(2026, 9, 25, 23);
    expect(first.figures.bsr.books.length).toBeGreaterThan(8);
    for (const line of first.figures.bsr.books) {
      const book = await s.rawBook(line.asin, line.marketplace);
      const hand = handMedian(book.bsr.history, dayStart, dayEnd);
      expect([line.pointsYesterday, line.yesterdayMedian ?? undefined]).toEqual([hand.count, hand.median]);
    }
    expect(first.figures.bsr.books.filter((l) => l.pointsYesterday === 25).length).toBeGreaterThan(5);
  });

  it('shows ARC invites vs reviews and spends requests only on sales', async () => {
    const arc = first.figures.arc.find((c) => c.campaignId === s.campaigns[0]);
    expect(arc?.invites).toBe(12);
    expect(arc?.reviews).toBeGreaterThan(0);
    expect(arc?.ratePct).toBeCloseTo(((arc?.reviews ?? 0) / 12) * 100, 10);
    expect(first.figures.arc.find((c) => c.campaignId === s.campaigns[1])?.invites).toBeNull();
    // One page per watched marketplace (US, BR, UK, DE, JP) from the workspace's budget; ranks and
    // reviews came from the snapshots, at no request cost.
    expect(digestRequests).toBe(5);
  });

  it('lists the next day what the API revised since, exactly as the raw answers differ', async () => {
    await deliverDigest(s.deps, { recipient, nowMs: s.sim.clock.now(), scheduledDate: '2026-10-25' });
    await s.advance(24 * 3_600_000);
    await s.pollAll();
    const second = await buildDigest(s.deps, { workspace: WORKSPACE, recipient, nowMs: s.sim.clock.now() });
    const raw2 = await s.rawSales('2026-10-19', '2026-10-26');
    checkAgainstRaw(second, raw2, '2026-10-26', '2026-10-20');
    const before = new Map(raw.map((r) => [`${r.asin} ${r.marketplace} ${r.date}`, r.royalties.amount]));
    const expected = raw2
      .filter((r) => before.has(`${r.asin} ${r.marketplace} ${r.date}`))
      .filter((r) => before.get(`${r.asin} ${r.marketplace} ${r.date}`) !== r.royalties.amount)
      .map(
        (r) =>
          `${r.asin} ${r.marketplace} ${r.date} ${before.get(`${r.asin} ${r.marketplace} ${r.date}`)} → ${r.royalties.amount}`,
      )
      .sort();
    const revisions = okSales(second.figures)
      .revisions.flatMap((r) => (r.kind === 'revised' && r.field === 'royalties' ? [r] : []))
      .map(
        (r) =>
          `${r.asin} ${r.marketplace} ${r.date} ${minorText(r.before, r.currency)} → ${minorText(r.after, r.currency)}`,
      )
      .sort();
    expect(expected.length).toBeGreaterThan(10);
    expect(revisions).toEqual(expected);
    expect(second.figures.keywords.baseline).toBe(false);
    expect(second.text).toContain('Revisions since the last digest:');
  });
});

/** 29517 USD → "295.17", 835 JPY → "835" (as the API writes them). */
function minorText(minor: number, currency: string | null): string {
  if (currency === 'JPY') return String(minor);
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

describe('digest acceptance: America/New_York, Sun 1 Nov 2026 (a 25-hour day)', () => {
  let s: Scenario;
  const recipient: DigestRecipient = { workspace: WORKSPACE, channel: 'box', timeZone: 'America/New_York' };

  beforeAll(async () => {
    s = await startScenario({
      startAt: '2026-11-02T13:30:00Z',
      timeZone: 'America/New_York',
      redis,
      prefix: `${prefix}ny`,
      channels: [{ id: 'box', type: 'outbox', dir: outbox }],
      recipients: [recipient],
    });
    await s.pollAll();
  });
  afterAll(() => s?.close());

  it('reports Sun 1 Nov with the raw figures and the hand-checked numbers', async () => {
    const built = await buildDigest(s.deps, { workspace: WORKSPACE, recipient, nowMs: s.sim.clock.now() });
    expect([built.figures.day, built.figures.dayHours]).toEqual(['2026-11-01', 25]);
    checkAgainstRaw(built, await s.rawSales('2026-10-25', '2026-11-01'), '2026-11-01', '2026-10-26');
    const sales = okSales(built.figures);
    const usd = sales.totals.find((t) => t.currency === 'USD')?.yesterday;
    expect([usd?.royalties, usd?.units, usd?.adSpend]).toEqual([24_961, 64, 3_808]);
    expect(sales.totals.find((t) => t.currency === 'EUR')?.yesterday?.royalties).toBe(1_416);
    expect(sales.pairs.find((p) => p.asin === 'B0IB4A0LFL' && p.marketplace === 'US')?.yesterday?.units).toBe(
      22,
    );
    expect(built.text).toMatch(
      /Royalties +249\.61 USD†? .*\n +Units +64†? .*\n +Ad spend +38\.08 USD†? .*\n +Net +211\.53 USD†? /,
    );
    const dayStart = Date.UTC(2026, 10, 1, 4);
    const dayEnd = Date.UTC(2026, 10, 2, 5);
    for (const line of built.figures.bsr.books) {
      const hand = handMedian((await s.rawBook(line.asin, line.marketplace)).bsr.history, dayStart, dayEnd);
      expect([line.pointsYesterday, line.yesterdayMedian ?? undefined]).toEqual([hand.count, hand.median]);
    }
    expect(built.figures.bsr.books.some((l) => l.pointsYesterday === 25)).toBe(true);
  });
});
