/**
 * The demo's config, written as the raw object a `shelfwatch.yaml` would parse to and checked by
 * the real schema, so the demo runs exactly what a user's config would run. Durations in it are
 * sim time (the engine's clock is the simulator's): `realSeconds` turns "a few real seconds" into
 * the matching sim duration for the chosen speed.
 */
import { parseConfig } from '../../config/load.ts';
import type { ShelfwatchConfig } from '../../config/schema.ts';
import type { SimWorld } from '../../sim/control-schemas.ts';
import { DemoError } from './errors.ts';

export const DEMO_WORKSPACE = 'demo';
/** A key the simulator accepts out of the box (src/sim/keys.ts DEMO_KEYS): the Studio plan. */
export const DEMO_API_KEY = 'sk_demo_studio';
export const SLACK_CHANNEL = 'slack';
export const EMAIL_CHANNEL = 'email';

/** Real seconds between two polls of each target, and the delivery windows, whatever the speed. */
export const POLL_EVERY_REAL_S = 3;
const GROUP_WAIT_REAL_S = 1;
const GROUP_INTERVAL_REAL_S = 2;

export interface DemoConfigInput {
  redisUrl: string;
  prefix: string;
  simUrl: string;
  world: SimWorld;
  slackUrl: string;
  smtpUrl: string;
  /** Sim ms per real ms. */
  speed: number;
}

/** Sim-time duration (in ms, the schema takes numbers as ms) lasting `seconds` of real time. */
function realSeconds(seconds: number, speed: number): number {
  return Math.max(1_000, Math.round(seconds * 1_000 * speed));
}

export function demoRules(): unknown[] {
  return [
    // Natural hourly noise moves top keywords by a few places; 15 keeps the story to real drops.
    { id: 'keyword-drop', kind: 'keyword_rank_drop', positionsLost: 15, unranked: true, for: 1 },
    { id: 'bsr-removed', kind: 'bsr_removed', for: 1 },
    { id: 'new-review', kind: 'review_new' },
    { id: 'sales-revision', kind: 'sales_revision' },
    { id: 'source-health', kind: 'source_health', failures: 3 },
  ];
}

export function buildDemoConfig(input: DemoConfigInput): ShelfwatchConfig {
  const { speed } = input;
  const every = realSeconds(POLL_EVERY_REAL_S, speed);
  const delivery = {
    groupWait: realSeconds(GROUP_WAIT_REAL_S, speed),
    groupInterval: realSeconds(GROUP_INTERVAL_REAL_S, speed),
  };
  const campaign = input.world.campaigns[0];
  const raw = {
    redis: { url: input.redisUrl, prefix: input.prefix },
    workspaces: [
      {
        id: DEMO_WORKSPACE,
        baseUrl: input.simUrl,
        apiKey: DEMO_API_KEY,
        plan: 'studio',
        timeZone: 'UTC',
        books: input.world.books.map((book) => ({
          asin: book.asin,
          marketplaces: ['US'],
          keywords: { top: 20 },
          author: book.author,
        })),
        campaigns: campaign === undefined ? [] : [{ id: campaign.campaign_id }],
        sales: { marketplaces: ['US'] },
        cadence: { book: every, keywords: every, reviews: every, sales: every },
      },
    ],
    rules: demoRules(),
    channels: [
      { id: SLACK_CHANNEL, type: 'slack', webhookUrl: input.slackUrl, allowAnyHost: true, ...delivery },
      {
        id: EMAIL_CHANNEL,
        type: 'email',
        smtpUrl: input.smtpUrl,
        from: 'shelfwatch-demo@shelfwatch.example',
        to: ['author@shelfwatch.example'],
        ...delivery,
      },
    ],
    digest: { enabled: true, recipients: [{ workspace: DEMO_WORKSPACE, channel: EMAIL_CHANNEL }] },
    workers: { pollConcurrency: 4, deliverConcurrency: 4 },
  };
  const parsed = parseConfig(raw);
  if (!parsed.ok) {
    const first = parsed.problems[0];
    throw new DemoError(
      `the demo's own config does not pass the schema (a bug): ${first?.path ?? '?'}: ${first?.message ?? ''}`,
    );
  }
  return parsed.config;
}
