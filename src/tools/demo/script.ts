/**
 * The demo's four scripted events. Their subjects are picked from the baselines the workers just
 * stored (a keyword that ranks now, a book that has a best-seller rank, a provisional sales day
 * with its figure), so each event is a real change against what shelfwatch last saw, whatever the
 * seed. Each event knows the alert it should produce, to tell the story's end.
 */
import type { Alert, AlertKind } from '../../model/alert.ts';
import type { Observation } from '../../model/observation.ts';
import type { SimEventInput, SimWorld } from '../../sim/control-schemas.ts';
import type { SimControlClient } from '../../sim/index.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { DAY_MS } from '../../util/time-units.ts';
import { DEMO_WORKSPACE } from './config.ts';
import { DemoError } from './errors.ts';

export interface ScriptedEvent {
  /** Short name: "keyword rank drop". */
  label: string;
  /** What was scripted, in words, for the summary. */
  description: string;
  expectedKind: AlertKind;
  body: SimEventInput;
  /** Set when the simulator took the event. */
  scriptedAt?: number;
  reviewId?: string;
  /** The alert it produced, once a channel confirmed one. */
  alert?: Alert;
  matches(alert: Alert): boolean;
}

/** The review a troll would write: every kind of text a channel must escape or isolate. */
export const HOSTILE_REVIEW = {
  title: '<b>DO NOT BUY</b> 😡',
  body: '<!channel> <script>alert(1)</script> & 1★ "worst book ever" — ספר נורא 📕 كتاب سيئ جدا 🤮',
  reviewer: 'قارئ غاضب 🙃',
} as const;

async function observationOf<K extends Observation['kind']>(
  store: SnapshotStore,
  kind: K,
  id: string,
): Promise<Extract<Observation, { kind: K }>> {
  const stored = await store.get({ workspace: DEMO_WORKSPACE, kind, id });
  if (stored === undefined || stored.observation.kind !== kind) {
    throw new DemoError(`no baseline for ${id} although its first poll succeeded (a bug)`);
  }
  return stored.observation as Extract<Observation, { kind: K }>;
}

async function keywordDrop(store: SnapshotStore, world: SimWorld): Promise<ScriptedEvent> {
  const book = world.books[0];
  if (book === undefined) throw new DemoError('the simulator has no books');
  const observed = await observationOf(store, 'keywords', `keywords/${book.asin}/US`);
  // The title and "author books" rank on name alone; a genre keyword tells the better story.
  const own = new Set([book.title.toLowerCase(), `${book.author.toLowerCase()} books`]);
  const ranked = observed.ranks.filter((r) => r.rank !== null && r.rank <= 150 && !own.has(r.keyword));
  const best = ranked.sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0))[0];
  if (best === undefined || best.rank === null) throw new DemoError(`no ranked keyword for ${book.asin}`);
  const rank = best.rank + 45;
  return {
    label: 'keyword rank drop',
    description: `"${best.keyword}" of ${book.asin} falls from #${best.rank} to #${rank}`,
    expectedKind: 'keyword_rank_drop',
    body: { type: 'keyword_rank', asin: book.asin, keyword: best.keyword, marketplace: 'US', rank },
    matches: (a) =>
      a.kind === 'keyword_rank_drop' && a.subject.asin === book.asin && a.subject.keyword === best.keyword,
  };
}

function hostileReview(world: SimWorld): ScriptedEvent {
  const campaign = world.campaigns[0];
  if (campaign === undefined) throw new DemoError('the simulator has no ARC campaign');
  const event: ScriptedEvent = {
    label: 'new review',
    description: `a hostile 1★ Amazon review (<!channel>, <script>, RTL, emoji) in campaign ${campaign.campaign_id}`,
    expectedKind: 'review_new',
    body: {
      type: 'review',
      campaign_id: campaign.campaign_id,
      platform: 'amazon',
      rating: 1,
      ...HOSTILE_REVIEW,
    },
    matches: (a) =>
      a.kind === 'review_new' && event.reviewId !== undefined && a.subject.reviewId === event.reviewId,
  };
  return event;
}

async function salesRevision(store: SnapshotStore, world: SimWorld, simNow: number): Promise<ScriptedEvent> {
  const sales = await observationOf(store, 'sales', 'sales/US');
  // Two days back: provisional (revised for 14 days), and a day every digest and report shows.
  const date = new Date(simNow - 2 * DAY_MS).toISOString().slice(0, 10);
  // The best seller of that day, so the revision is a sum worth an alert.
  const day = sales.days
    .filter((d) => d.date === date && d.royalties.currency === 'USD')
    .sort((a, b) => b.royalties.minor - a.royalties.minor)[0];
  const book = world.books.find((b) => b.asin === day?.asin);
  if (day === undefined || book === undefined) throw new DemoError(`no US sales row for ${date}`);
  const before = day.royalties.minor;
  const after = before + Math.max(150, Math.round(before * 0.12));
  const usd = (minor: number) => (minor / 100).toFixed(2);
  return {
    label: 'sales revision',
    description: `royalties of ${book.asin} on ${date} (provisional) revised from ${usd(before)} to ${usd(after)} USD`,
    expectedKind: 'sales_revision',
    body: { type: 'sales_revision', asin: book.asin, marketplace: 'US', date, royalties: usd(after) },
    matches: (a) => a.kind === 'sales_revision' && a.subject.asin === book.asin && a.subject.date === date,
  };
}

async function bsrRemoved(store: SnapshotStore, world: SimWorld): Promise<ScriptedEvent> {
  // Another book than the keyword story's, if one has a rank right now (rare natural gaps have none).
  const candidates = [...world.books.slice(1), ...world.books.slice(0, 1)];
  for (const book of candidates) {
    const observed = await observationOf(store, 'book', `book/${book.asin}/US`);
    if (observed.bsr === null) continue;
    return {
      label: 'BSR removed',
      description: `Amazon drops the best-seller rank of ${book.asin} (#${observed.bsr.toLocaleString('en-US')} → none)`,
      expectedKind: 'bsr_removed',
      body: { type: 'bsr', asin: book.asin, marketplace: 'US', rank: null },
      matches: (a) => a.kind === 'bsr_removed' && a.subject.asin === book.asin,
    };
  }
  throw new DemoError('no book has a best-seller rank right now; try another --seed');
}

/** The four events, in the order they are scripted. */
export async function planScript(
  store: SnapshotStore,
  world: SimWorld,
  simNow: number,
): Promise<ScriptedEvent[]> {
  return [
    await keywordDrop(store, world),
    hostileReview(world),
    await salesRevision(store, world, simNow),
    await bsrRemoved(store, world),
  ];
}

/** Sends one event to the simulator and marks it scripted. */
export async function applyEvent(
  control: SimControlClient,
  event: ScriptedEvent,
  simNow: () => number,
  signal: AbortSignal,
): Promise<void> {
  const answer = await control.event(event.body, signal);
  if (event.body.type === 'review') {
    if (answer.review_id === undefined) throw new DemoError('the simulator did not say the new review id');
    event.reviewId = answer.review_id;
  }
  event.scriptedAt = simNow();
}
