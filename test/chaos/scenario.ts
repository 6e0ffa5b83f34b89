// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
import type { AlertKind } from '../../src/model/alert.ts';
import type { Observation, TargetKind } from '../../src/model/observation.ts';
import type { SimWorld } from '../../src/sim/control-schemas.ts';
import type { SimControlClient } from '../../src/sim/index.ts';
import type { RedisSnapshotStore } from '../../src/snapshot/store.ts';
import { HOSTILE_REVIEWS } from './hostile.ts';

export const WORKSPACE = 'ws-chaos';
export const KW_A = 'chaos keyword alpha';
export const KW_B = 'chaos keyword beta';
const BSR_BEFORE = 12_345;
const BSR_AFTER = 12_000;

/** The sim clock runs at real speed; near UTC midnight it starts an hour back, so no sales day turns over mid-run. */
export function simStart(now: number): number {
  const intoDay = now % 86_400_000;
  return intoDay > 86_400_000 - 10 * 60_000 ? now - 3_600_000 : now;
}

/** Which books and campaign the scripted events touch; rules watch only these, so the seeded world's own moves stay quiet. */
export interface Subjects {
  keywordAsin: string;
  bsrAsin: string;
  bsrTitle: string;
  salesAsin: string;
  /** Scripted reviews carry this ASIN, which is no campaign's own: generated reviews never match the review rules. */
  reviewAsin: string;
  campaign: string;
  /** A provisional sales day (three days ago on the sim clock) that the revisions rewrite. */
  salesDate: string;
}

export function pickSubjects(world: SimWorld): Subjects {
  const campaign = world.campaigns[0];
  const campaignAsins = new Set(world.campaigns.map((c) => c.asin));
  const books = world.books.filter((b) => b.marketplaces.includes('US'));
  const [, keyword, bsr, sales] = books;
  const review = books.find((b) => !campaignAsins.has(b.asin));
  if (
    campaign === undefined ||
    keyword === undefined ||
    bsr === undefined ||
    sales === undefined ||
    !review
  ) {
    throw new Error('the seeded world needs 4 US books and a campaign');
  }
  return {
    keywordAsin: keyword.asin,
    bsrAsin: bsr.asin,
    bsrTitle: bsr.title,
    salesAsin: sales.asin,
    reviewAsin: review.asin,
    campaign: campaign.campaign_id,
    salesDate: new Date(Date.parse(world.now) - 3 * 86_400_000).toISOString().slice(0, 10),
  };
}

export function configYaml(o: {
  redisUrl: string;
  prefix: string;
  simUrl: string;
  plan: string;
  s: Subjects;
  /** On a Cluster: the shard count, and the shard the workspace is pinned to. */
  shards?: { count: number; workspaceShard: number };
}): string {
  const { s } = o;
  const channel = 'groupWait: 1s, groupInterval: 2s';
  const cluster =
    o.shards === undefined
      ? ''
      : `, cluster: true, shards: { count: ${o.shards.count}, pin: { "${o.shards.workspaceShard}": [${WORKSPACE}] } }`;
  return [
    `redis: { url: "${o.redisUrl}", prefix: "${o.prefix}"${cluster} }`,
    'server: { port: 0 }',
    'workspaces:',
    `  - id: ${WORKSPACE}`,
    `    baseUrl: ${o.simUrl}`,
    '    apiKey: "${CHAOS_API_KEY}"',
    `    plan: "${o.plan}"`,
    '    books:',
    `      - { asin: ${s.keywordAsin}, marketplaces: [US], keywords: ["${KW_A}", "${KW_B}"] }`,
    `      - { asin: ${s.bsrAsin}, marketplaces: [US], keywords: { top: 3 } }`,
    `    campaigns: [{ id: "${s.campaign}" }]`,
    '    sales: { marketplaces: [US] }',
    // 52.5 requests a minute of demand without faults: under the plan's 60, so the budget binds
    // only when retries, 429 pauses and restarts bunch polls together.
    '    cadence: { book: 8s, keywords: 8s, reviews: 4s, sales: 8s }',
    'rules:',
    `  - { id: kw-drop, kind: keyword_rank_drop, books: [${s.keywordAsin}], keywords: ["${KW_A}", "${KW_B}"], positionsLost: 40 }`,
    `  - { id: bsr-removed, kind: bsr_removed, books: [${s.bsrAsin}] }`,
    `  - { id: review-new, kind: review_new, books: [${s.reviewAsin}] }`,
    `  - { id: review-removed, kind: review_removed, books: [${s.reviewAsin}] }`,
    `  - { id: sales-revision, kind: sales_revision, books: [${s.salesAsin}] }`,
    '  - { id: source-health, kind: source_health, failures: 3 }',
    'channels:',
    `  - { id: slack, type: slack, webhookUrl: "\${CHAOS_SLACK_URL}", allowAnyHost: true, ${channel} }`,
    `  - { id: email, type: email, smtpUrl: "\${CHAOS_SMTP_URL}", from: alerts@chaos.test, to: [team@chaos.test], ${channel} }`,
    `  - { id: log, type: log, ${channel} }`,
    `  - { id: dead, type: slack, webhookUrl: "\${CHAOS_DEAD_URL}", allowAnyHost: true, ${channel} }`,
    '',
  ].join('\n');
}

/** The six poll targets the config makes. */
export function pollTargets(s: Subjects): { kind: TargetKind; id: string }[] {
  return [
    { kind: 'book', id: `book/${s.keywordAsin}/US` },
    { kind: 'keywords', id: `keywords/${s.keywordAsin}/US` },
    { kind: 'book', id: `book/${s.bsrAsin}/US` },
    { kind: 'keywords', id: `keywords/${s.bsrAsin}/US` },
    { kind: 'reviews', id: `reviews/${s.campaign}` },
    { kind: 'sales', id: 'sales/US' },
  ];
}

/** Values the scripted subjects hold before the workers start: overrides stay until replaced, so nothing drifts. */
export async function pinBaselines(admin: SimControlClient, s: Subjects): Promise<void> {
  await admin.event({ type: 'keyword_rank', asin: s.keywordAsin, keyword: KW_A, rank: 3 });
  await admin.event({ type: 'keyword_rank', asin: s.keywordAsin, keyword: KW_B, rank: 7 });
  await admin.event({ type: 'bsr', asin: s.bsrAsin, rank: BSR_BEFORE });
}

export interface ExpectedAlert {
  event: string;
  kind: AlertKind;
  title: string;
  matches(title: string): boolean;
}

export interface EventContext {
  admin: SimControlClient;
  store: RedisSnapshotStore;
  s: Subjects;
  reviewIds: Map<string, string>;
}

export interface ScriptedEvent {
  id: string;
  apply(ctx: EventContext): Promise<void>;
  /** True once a committed snapshot shows the change: its alert (if any) was enqueued before that commit. */
  observed(ctx: EventContext): Promise<boolean>;
  expect?: Omit<ExpectedAlert, 'event'>;
}

async function stored(ctx: EventContext, kind: TargetKind, id: string): Promise<Observation | undefined> {
  return (await ctx.store.get({ workspace: WORKSPACE, kind, id }))?.observation;
}

async function keywordRank(ctx: EventContext, keyword: string): Promise<number | null | undefined> {
  const obs = await stored(ctx, 'keywords', `keywords/${ctx.s.keywordAsin}/US`);
  return obs?.kind === 'keywords' ? obs.ranks.find((r) => r.keyword === keyword)?.rank : undefined;
}

async function bsr(ctx: EventContext): Promise<number | null | undefined> {
  const obs = await stored(ctx, 'book', `book/${ctx.s.bsrAsin}/US`);
  return obs?.kind === 'book' ? obs.bsr : undefined;
}

async function reviewListed(ctx: EventContext, key: string): Promise<boolean> {
  const obs = await stored(ctx, 'reviews', `reviews/${ctx.s.campaign}`);
  const id = ctx.reviewIds.get(key);
  return obs?.kind === 'reviews' && obs.reviews.some((r) => r.reviewId === id);
}

async function royalties(ctx: EventContext): Promise<number | undefined> {
  const obs = await stored(ctx, 'sales', 'sales/US');
  if (obs?.kind !== 'sales') return undefined;
  return obs.days.find((d) => d.asin === ctx.s.salesAsin && d.date === ctx.s.salesDate)?.royalties.minor;
}

const exact = (kind: AlertKind, title: string): Omit<ExpectedAlert, 'event'> => ({
  kind,
  title,
  matches: (t) => t === title,
});

/** A title whose end says how long the condition lasted, which depends on the run's timing. */
const lasted = (kind: AlertKind, title: string, ending: string): Omit<ExpectedAlert, 'event'> => ({
  kind,
  title: `${title}${ending}…`,
  matches: (t) => t.startsWith(`${title}${ending}`) && !t.slice(title.length + ending.length).includes('('),
});

function keywordEvent(id: string, keyword: string, rank: number | null, title?: string): ScriptedEvent {
  return {
    id,
    apply: async (ctx) => {
      await ctx.admin.event({ type: 'keyword_rank', asin: ctx.s.keywordAsin, keyword, rank });
    },
    observed: async (ctx) => (await keywordRank(ctx, keyword)) === rank,
    ...(title === undefined ? {} : { expect: exact('keyword_rank_drop', title) }),
  };
}

function reviewEvent(key: keyof typeof HOSTILE_REVIEWS, s: Subjects): ScriptedEvent {
  const review = HOSTILE_REVIEWS[key];
  const platform = review.platform[0]?.toUpperCase() + review.platform.slice(1);
  return {
    id: `new-${key}`,
    apply: async (ctx) => {
      const { review_id } = await ctx.admin.event({
        type: 'review',
        campaign_id: ctx.s.campaign,
        asin: ctx.s.reviewAsin,
        ...review,
      });
      if (review_id === undefined) throw new Error('the simulator returned no review id');
      ctx.reviewIds.set(key, review_id);
    },
    observed: (ctx) => reviewListed(ctx, key),
    expect: exact(
      'review_new',
      `New ${review.rating}★ ${platform} review of ${s.reviewAsin} (campaign ${s.campaign})`,
    ),
  };
}

function removalEvent(key: keyof typeof HOSTILE_REVIEWS, s: Subjects): ScriptedEvent {
  const review = HOSTILE_REVIEWS[key];
  const platform = review.platform[0]?.toUpperCase() + review.platform.slice(1);
  return {
    id: `remove-${key}`,
    apply: async (ctx) => {
      await ctx.admin.event({ type: 'remove_review', review_id: ctx.reviewIds.get(key) ?? '' });
    },
    observed: async (ctx) => !(await reviewListed(ctx, key)),
    expect: exact(
      'review_removed',
      `A ${review.rating}★ ${platform} review of ${s.reviewAsin} was removed (campaign ${s.campaign})`,
    ),
  };
}

function salesEvent(id: string, amount: string, s: Subjects): ScriptedEvent {
  const minor = Math.round(Number(amount) * 100);
  const [units = '', cents = '00'] = amount.split('.');
  const shown = `${units.replace(/\B(?=(\d{3})+$)/g, ',')}.${cents}`;
  const head = `Sales of ${s.salesAsin} (US) for ${s.salesDate} revised: royalties `;
  return {
    id,
    apply: async (ctx) => {
      await ctx.admin.event({
        type: 'sales_revision',
        asin: ctx.s.salesAsin,
        marketplace: 'US',
        date: ctx.s.salesDate,
        royalties: amount,
      });
    },
    observed: async (ctx) => (await royalties(ctx)) === minor,
    expect: {
      kind: 'sales_revision',
      title: `${head}… → ${shown} USD (…)`,
      matches: (t) => t.startsWith(head) && t.includes(` → ${shown} USD (`),
    },
  };
}

function bsrEvent(id: string, rank: number | null, title: string, kind: AlertKind): ScriptedEvent {
  return {
    id,
    apply: async (ctx) => {
      await ctx.admin.event({ type: 'bsr', asin: ctx.s.bsrAsin, rank });
    },
    observed: async (ctx) => (await bsr(ctx)) === rank,
    // A restore ends with how long the rank was gone ("— removed for 2 min").
    expect: kind === 'bsr_restored' ? lasted(kind, title, ' — removed for ') : exact(kind, title),
  };
}

/**
 * The scripted events, in order. Each one is applied only after the previous one was observed, so
 * every change is seen by at least one good poll and the expected alerts are exact. The recovery
 * of the first keyword drop alerts nothing (`sendResolved` is off) and arms a second episode.
 */
export function scriptedEvents(s: Subjects): ScriptedEvent[] {
  const kw = (keyword: string) => `“${keyword}”`;
  const at = `(${s.keywordAsin}, US)`;
  const book = `“${s.bsrTitle}” `;
  return [
    keywordEvent('keyword-drop', KW_A, 58, `${kw(KW_A)} fell from #3 to #58 ${at}`),
    reviewEvent('markup', s),
    bsrEvent(
      'bsr-removed',
      null,
      `Amazon removed the best-seller rank of ${book}(was #12,345) (${s.bsrAsin}, US)`,
      'bsr_removed',
    ),
    salesEvent('sales-revision-1', '4321.09', s),
    reviewEvent('forged', s),
    keywordEvent('keyword-unranked', KW_B, null, `${kw(KW_B)} lost its rank (was #7) ${at}`),
    removalEvent('markup', s),
    bsrEvent(
      'bsr-restored',
      BSR_AFTER,
      `Best-seller rank of ${book}is back: #12,000 (before removal: #12,345) (${s.bsrAsin}, US)`,
      'bsr_restored',
    ),
    keywordEvent('keyword-recovered (silent)', KW_A, 3),
    keywordEvent('keyword-drop-again', KW_A, 71, `${kw(KW_A)} fell from #3 to #71 ${at}`),
    salesEvent('sales-revision-2', '4400.10', s),
    reviewEvent('long', s),
    removalEvent('forged', s),
  ];
}
