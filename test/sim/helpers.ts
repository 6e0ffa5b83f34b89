import { afterAll, onTestFinished } from 'vitest';
import {
  DEMO_KEYS,
  parsePlan,
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/sim/index.ts';

/** A fixed instant 10 s into a minute, so minute windows in tests are exact. */
export const START = '2026-11-21T14:00:10Z';
export const ADMIN = 'test-admin-token';
export const STUDIO_KEY = 'sk_demo_studio';
export const PUBLISHER_KEY = 'sk_demo_publisher';
/** A key with room for every request of a test file (the frozen clock keeps one minute window). */
export const ROOMY_KEY = 'sk_test_roomy';
const ROOMY = { key: ROOMY_KEY, workspace: 'test-roomy', plan: parsePlan('custom:1000000:100000000') };

export interface Reply<T> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface ErrorBody {
  error: { code: string; message: string; request_id: string; details?: { path: string; message: string }[] };
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface BookBody {
  asin: string;
  marketplace: string;
  title: string;
  author: string;
  bsr: {
    rank: number | null;
    category: string;
    observed_at: string;
    history: { at: string; rank: number | null }[];
  };
  organic_keywords: { keyword: string; rank: number | null }[];
  comp_titles: { asin: string; title: string; bsr: number }[];
  review_sentiment: {
    average_rating: number;
    review_count: number;
    positive: number;
    neutral: number;
    negative: number;
  };
}

export interface BookKeyword {
  keyword: string;
  rank: number | null;
  search_volume: number;
  traffic_share: number;
}

export interface SearchResult {
  keyword: string;
  search_volume: number;
  competition: number;
  intent_score: number;
}

export interface Series {
  asin: string;
  keyword: string;
  marketplace: string;
  points: { at: string; rank: number | null }[];
}

export interface ReviewBody {
  review_id: string;
  campaign_id: string;
  asin: string;
  platform: string;
  rating: number;
  title: string | null;
  body: string;
  reviewer: string;
  url: string | null;
  published_at: string;
}

export interface Money {
  amount: string;
  currency: string;
}

export interface SalesBody {
  asin: string;
  marketplace: string;
  date: string;
  units: number;
  royalties: Money;
  ad_spend: Money;
}

export interface WorldBody {
  now: string;
  books: { asin: string; title: string; author: string; marketplaces: string[]; keywords: string[] }[];
  campaigns: { campaign_id: string; asin: string }[];
  workspaces: { workspace: string; plan: { name: string; perMinute: number; perMonth: number } }[];
}

export interface LogEntry {
  seq: number;
  sim_time: string;
  real_time: string;
  method: string;
  path: string;
  query: string;
  status: number | null;
  workspace: string | null;
  error_code: string | null;
  fault: string | null;
  counted: boolean;
}

/**
 * A simulator for one test file on a free port, frozen at START unless told otherwise, closed after
 * the file. Requests use ROOMY_KEY unless a test names another key (or null for none).
 */
export class TestSim {
  private constructor(readonly sim: RunningSimulator) {}

  /** For `beforeAll`: the simulator lives until the file's tests are done. */
  static async start(options: SimulatorOptions = {}): Promise<TestSim> {
    const sim = await TestSim.launch(options);
    afterAll(() => sim.close());
    return new TestSim(sim);
  }

  /** Inside a test: the simulator is closed when that test finishes. */
  static async startForTest(options: SimulatorOptions = {}): Promise<TestSim> {
    const sim = await TestSim.launch(options);
    onTestFinished(() => sim.close());
    return new TestSim(sim);
  }

  private static launch(options: SimulatorOptions): Promise<RunningSimulator> {
    return startSimulator({
      startAt: START,
      speed: 0,
      adminToken: ADMIN,
      keys: [ROOMY, ...DEMO_KEYS],
      ...options,
    });
  }

  async request<T>(
    method: string,
    path: string,
    options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const key = options.key === undefined ? ROOMY_KEY : options.key;
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const response = await fetch(`${this.sim.url}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    const isJson = (response.headers.get('content-type') ?? '').includes('json');
    let parsed: unknown;
    if (isJson) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    return { status: response.status, headers: response.headers, text, body: parsed as T };
  }

  get<T>(path: string, key?: string | null): Promise<Reply<T>> {
    return this.request<T>('GET', path, { key });
  }

  /** Calls the control endpoint and insists that it succeeded. */
  async control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const reply = await this.controlRaw<T>(method, path, body);
    if (reply.status !== 200)
      throw new Error(`control ${method} ${path} answered ${reply.status}: ${reply.text}`);
    return reply.body;
  }

  controlRaw<T>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    return this.request<T>(method, path, { key: null, body, headers: { 'X-Sim-Admin-Token': ADMIN } });
  }

  world(): Promise<WorldBody> {
    return this.control<WorldBody>('GET', '/_sim/world');
  }

  async advance(ms: number): Promise<void> {
    await this.control('POST', '/_sim/clock', { advanceMs: ms });
  }

  /** Follows next_cursor to the end; returns the items and the number of pages. */
  async all<T>(path: string, key?: string): Promise<{ items: T[]; pages: number }> {
    const items: T[] = [];
    let pages = 0;
    let cursor: string | null = null;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const url: string = cursor === null ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`;
      const reply: Reply<Page<T>> = await this.get<Page<T>>(url, key);
      if (reply.status !== 200) throw new Error(`${url} answered ${reply.status}: ${reply.text}`);
      items.push(...reply.body.data);
      cursor = reply.body.next_cursor;
      pages += 1;
    } while (cursor !== null);
    return { items, pages };
  }
}

export const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
export const ASIN_RE = /^[A-Z0-9]{10}$/;
