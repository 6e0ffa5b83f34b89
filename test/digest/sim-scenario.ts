/**
 * A workspace watching a seeded simulator, its snapshots filled by real polls (the poll engine's
 * processor against the simulator and Redis), and the digest's dependencies around it.
 */
import type { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import type { SmtpPool } from '../../src/channels/smtp-pool.ts';
import type { DigestDeps } from '../../src/digest/build.ts';
import { DigestStateStore } from '../../src/digest/state.ts';
import type { SalesRow } from '../../src/model/sales-day.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { parsePlan, type RunningSimulator, startSimulator } from '../../src/sim/index.ts';
import { createHarness, type Harness, parseOrThrow } from '../poll/engine-harness.ts';

export const API_KEY = 'sk_test_digest_0123456789abcdef';
export const WORKSPACE = 'acme';

export interface SimBook {
  asin: string;
  title: string;
  marketplaces: string[];
}

/**
 * A `/v1/sales` row as the API sends it. The acceptance test sums these with its own decimal
 * reading on purpose (an oracle apart from model/sales-day.ts, which the digest uses).
 */
export type RawSale = SalesRow;

export interface Scenario {
  sim: RunningSimulator;
  harness: Harness;
  deps: DigestDeps;
  books: SimBook[];
  campaigns: string[];
  /** Polls every book, keyword and review target once at the simulator's current time. */
  pollAll(): Promise<void>;
  /** The raw `/v1/sales` rows of every watched marketplace (plain HTTP, every page). */
  rawSales(from: string, to: string): Promise<RawSale[]>;
  rawBook(
    asin: string,
    marketplace: string,
  ): Promise<{ bsr: { history: { at: string; rank: number | null }[] } }>;
  /** The simulator's control endpoint (faults, clock). */
  admin(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<void>;
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startScenario(options: {
  startAt: string;
  timeZone: string;
  redis: Redis;
  prefix: string;
  channels: unknown[];
  recipients: unknown[];
  /** The config's `people:` section (people with a digest subscription are recipients too). */
  people?: unknown;
  smtp?: Pick<SmtpPool, 'sendMail'>;
}): Promise<Scenario> {
  const sim = await startSimulator({
    port: 0,
    seed: 7,
    startAt: options.startAt,
    speed: 0,
    books: 8,
    campaigns: 2,
    keys: [{ key: API_KEY, workspace: WORKSPACE, plan: parsePlan('custom:100000:100000000') }],
  });
  const agent = new Agent();
  const get = async <T>(path: string, admin = false): Promise<T> => {
    const headers: Record<string, string> = admin
      ? { 'x-sim-admin-token': sim.adminToken }
      : { authorization: `Bearer ${API_KEY}` };
    const res = await request(`${sim.url}${path}`, { dispatcher: agent, headers });
    const body = (await res.body.json()) as T;
    if (res.statusCode !== 200) throw new Error(`${path} → ${res.statusCode}: ${JSON.stringify(body)}`);
    return body;
  };
  const world = await get<{ books: SimBook[]; campaigns: { campaign_id: string }[] }>('/_sim/world', true);
  const books = world.books.map((b) => ({ asin: b.asin, title: b.title, marketplaces: b.marketplaces }));
  const campaigns = world.campaigns.map((c) => c.campaign_id);
  const config = parseOrThrow({
    redis: { prefix: options.prefix },
    workspaces: [
      {
        id: WORKSPACE,
        baseUrl: sim.url,
        apiKey: API_KEY,
        plan: 'custom:100000:100000000',
        timeZone: options.timeZone,
        books: books.map((b) => ({ asin: b.asin, marketplaces: b.marketplaces, keywords: { top: 20 } })),
        campaigns: campaigns.map((id) => ({ id })),
      },
    ],
    channels: options.channels,
    digest: { time: '08:00', recipients: options.recipients },
    ...(options.people === undefined ? {} : { people: options.people }),
  });
  const harness = createHarness({ sim, redis: options.redis, prefix: options.prefix, config });
  const deps: DigestDeps = {
    config,
    clientFor: harness.deps.clientFor,
    store: harness.store,
    budget: harness.deps.budget,
    redis: options.redis,
    prefix: options.prefix,
    state: new DigestStateStore(options.redis, options.prefix),
    smtp: options.smtp ?? {
      sendMail: () => Promise.reject(new Error('this scenario sends no email')),
    },
    clock: sim.clock,
    logger: silentLogger(),
  };
  const marketplaces = [...new Set(books.flatMap((b) => b.marketplaces))];
  const admin = async (method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<void> => {
    const res = await request(`${sim.url}${path}`, {
      method,
      dispatcher: agent,
      headers: { 'x-sim-admin-token': sim.adminToken, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`${method} ${path} → ${res.statusCode}`);
  };
  return {
    sim,
    harness,
    deps,
    books,
    campaigns,
    async pollAll() {
      for (const book of books) {
        for (const marketplace of book.marketplaces) {
          await harness.poll(`book/${book.asin}/${marketplace}`);
          await harness.poll(`keywords/${book.asin}/${marketplace}`);
        }
      }
      for (const id of campaigns) await harness.poll(`reviews/${id}`);
    },
    async rawSales(from, to) {
      const rows: RawSale[] = [];
      for (const marketplace of marketplaces) {
        let cursor: string | null = null;
        do {
          const query = `from=${from}&to=${to}&marketplace=${marketplace}&limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
          const page: { data: RawSale[]; next_cursor: string | null } = await get(`/v1/sales?${query}`);
          rows.push(...page.data);
          cursor = page.next_cursor;
        } while (cursor !== null);
      }
      return rows;
    },
    rawBook(asin, marketplace) {
      return get(`/v1/books/${asin}?marketplace=${marketplace}`);
    },
    admin,
    advance: (ms) => admin('POST', '/_sim/clock', { advanceMs: ms }),
    async close() {
      await harness.close();
      await agent.close();
      await sim.close();
    },
  };
}
