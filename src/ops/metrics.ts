import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { withTimeout } from '../util/timeout.ts';

/** A poll job's end: the processor's statuses, plus `deferred` (parked) and `failed` (threw). */
export type PollOutcome =
  | 'ok'
  | 'no_data'
  | 'error'
  | 'stale'
  | 'duplicate'
  | 'skipped'
  | 'deferred'
  | 'failed';
/** A flush job's end: `failed` is retried while attempts remain; `rejected` is a dead letter at once. */
export type DeliveryOutcome = 'sent' | 'empty' | 'deferred' | 'failed' | 'rejected';
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

export interface BudgetSample {
  workspace: string;
  minuteUsed: number;
  monthUsed: number;
  /** Left under the background ceiling (quota minus reserve); absent when unknown. */
  monthRemaining?: number;
  paused: boolean;
}
export interface QueueSample {
  queue: string;
  counts: Partial<Record<QueueState, number>>;
}
export interface ChannelSample {
  channel: string;
  disabled: boolean;
}

/** One book's figures for the per-book gauges (optional, `server.bookMetrics`). */
export interface BookSample {
  workspace: string;
  asin: string;
  marketplace: string;
  bsr: number | null;
  reviewCount: number | null;
  rating: number | null;
  /** Yesterday's (UTC) royalties, in the currency's unit, per currency. */
  royalties: { currency: string; amount: number }[];
}

export type Source<T> = () => T | Promise<T>;

/** Read at every scrape; each one is optional and may fail on its own. */
export interface MetricsSources {
  budget?: Source<readonly BudgetSample[]>;
  queues?: Source<readonly QueueSample[]>;
  channels?: Source<readonly ChannelSample[]>;
  workersRunning?: Source<number>;
  books?: Source<readonly BookSample[]>;
}

export interface MetricsOptions {
  sources?: MetricsSources;
  /** A source slower than this is skipped for that scrape (Redis down must not hang /metrics). */
  collectTimeoutMs?: number;
  /** Process metrics (CPU, memory, event loop, GC); tests may turn them off. Default true. */
  defaultMetrics?: boolean;
  /** Exported as `shelfwatch_build_info{version}` so mixed versions show during an upgrade. */
  version?: string;
  /** The most per-book series exported; books past it are counted in `book_series_dropped`. */
  maxBookSeries?: number;
}

const PREFIX = 'shelfwatch_';

function families(registry: Registry) {
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter({ name: PREFIX + name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge({ name: PREFIX + name, help, labelNames, registers });
  return {
    apiRequests: counter('api_requests_total', 'Responses of the Publishing Analytics API.', [
      'workspace',
      'endpoint',
      'status',
    ]),
    apiDuration: new Histogram({
      name: `${PREFIX}api_request_duration_seconds`,
      help: 'Time from sending an API request to its response.',
      labelNames: ['workspace', 'endpoint'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    apiRequestsWasted: counter(
      'api_requests_wasted_total',
      'Requests sent by polls that then had to wait (budget, 429): their answers were thrown away.',
      ['workspace'],
    ),
    polls: counter('polls_total', 'Poll jobs by outcome.', ['workspace', 'kind', 'outcome']),
    pollLag: new Histogram({
      name: `${PREFIX}poll_lag_seconds`,
      help: 'Start of a poll job minus its scheduled time.',
      // Up to hours: a poll deferred by the budget waits for the next window, or the next month.
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14_400],
      registers,
    }),
    alerts: counter('alerts_total', 'Alerts raised by the rules.', ['kind']),
    deliveries: counter('deliveries_total', 'Flush jobs (one message each) by outcome.', [
      'channel',
      'outcome',
    ]),
    deliveredAlerts: counter('delivered_alerts_total', 'Alerts in messages a channel confirmed.', [
      'channel',
    ]),
    silencedAlerts: counter('silenced_alerts_total', 'Alerts a silence or mute window kept from a channel.', [
      'channel',
    ]),
    budgetMinuteUsed: gauge('budget_minute_used', 'Requests in the sliding minute window.', ['workspace']),
    budgetMonthUsed: gauge('budget_month_used', 'Requests counted this UTC month.', ['workspace']),
    budgetMonthRemaining: gauge('budget_month_remaining', 'Left this month for polls.', ['workspace']),
    budgetPaused: gauge('budget_paused', '1 while the workspace is paused.', ['workspace']),
    queueJobs: gauge('queue_jobs', 'Jobs in each queue by state.', ['queue', 'state']),
    channelDisabled: gauge('channel_disabled', '1 when a channel was disabled for good.', ['channel']),
    workersRunning: gauge('workers_running', 'BullMQ workers of this process taking jobs.', []),
    stateLosses: counter(
      'redis_state_losses_total',
      'Times this process found Redis had lost the state.',
      [],
    ),
    redisOom: counter('redis_oom_errors_total', 'Redis commands refused for want of memory (OOM).', []),
    redisWritable: gauge('redis_writable', '1 while a probe write succeeds, 0 while Redis refuses it.', []),
    clockSkew: gauge('clock_skew_seconds', "This process's clock minus Redis TIME.", []),
    configRevision: gauge(
      'config_revision',
      'The configuration revision this process runs (0: its file, not stored).',
      [],
    ),
    configRevisionFailing: gauge(
      'config_revision_failing',
      '1 while the newest configuration revision cannot be applied here (the last good one runs).',
      [],
    ),
    bookBsr: gauge('book_bsr', 'Best-seller rank of the book as last polled.', [
      'workspace',
      'asin',
      'marketplace',
    ]),
    bookReviews: gauge('book_reviews', 'Review count of the book as last polled.', [
      'workspace',
      'asin',
      'marketplace',
    ]),
    bookRating: gauge('book_rating', 'Average rating of the book as last polled.', [
      'workspace',
      'asin',
      'marketplace',
    ]),
    bookRoyalties: gauge(
      'book_royalties_yesterday',
      "Yesterday's (UTC) royalties of the book, in the currency's unit.",
      ['workspace', 'asin', 'marketplace', 'currency'],
    ),
    bookSeriesDropped: gauge(
      'book_series_dropped',
      'Per-book series left out at the last scrape (server.bookMetrics.maxSeries).',
      [],
    ),
    buildInfo: gauge('build_info', 'Always 1; the label tells which release runs.', ['version']),
  };
}

/**
 * The process's Prometheus metrics, in a registry of its own so that tests (and library users)
 * never share or collide on prom-client's global one. Recording methods never throw: a metric must
 * not be able to fail a poll or a delivery.
 */
export class Metrics {
  private readonly registry = new Registry();
  private readonly m = families(this.registry);
  private readonly sources: MetricsSources;
  private readonly collectTimeoutMs: number;
  private readonly maxBookSeries: number;

  constructor(options: MetricsOptions = {}) {
    this.sources = options.sources ?? {};
    this.maxBookSeries = options.maxBookSeries ?? 2_000;
    this.collectTimeoutMs = options.collectTimeoutMs ?? 2_000;
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    if (options.version !== undefined) this.m.buildInfo.set({ version: options.version }, 1);
    // A gauge without labels starts at 0; until its source answers it must show nothing, not 0.
    this.m.workersRunning.remove();
    this.m.bookSeriesDropped.remove();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** One API response: `endpoint` is the template (`GET /v1/books/{asin}`), never the path. */
  apiRequest(workspace: string, endpoint: string, status: number | string, durationMs?: number): void {
    this.m.apiRequests.inc({ workspace, endpoint, status: String(status) });
    if (durationMs !== undefined && Number.isFinite(durationMs) && durationMs >= 0) {
      this.m.apiDuration.observe({ workspace, endpoint }, durationMs / 1000);
    }
  }

  /** Requests a poll sent before it was deferred: fetched again when it runs again. */
  apiRequestsWasted(workspace: string, requests: number): void {
    if (Number.isFinite(requests) && requests > 0) this.m.apiRequestsWasted.inc({ workspace }, requests);
  }

  poll(workspace: string, kind: string, outcome: PollOutcome): void {
    this.m.polls.inc({ workspace, kind, outcome });
  }

  pollLag(seconds: number): void {
    // Hosts' clocks disagree a little; a negative lag is that, not a job run early.
    if (Number.isFinite(seconds)) this.m.pollLag.observe(Math.max(0, seconds));
  }

  alerts(kind: string, count: number): void {
    if (Number.isFinite(count) && count > 0) this.m.alerts.inc({ kind }, count);
  }

  /** `alerts` counts only when the channel confirmed the message (`sent`). */
  delivery(channel: string, outcome: DeliveryOutcome, alerts = 0): void {
    this.m.deliveries.inc({ channel, outcome });
    if (outcome === 'sent' && Number.isFinite(alerts) && alerts > 0) {
      this.m.deliveredAlerts.inc({ channel }, alerts);
    }
  }

  /** Alerts recorded as silenced instead of sent (each alert and channel once). */
  silenced(channel: string, alerts: number): void {
    if (Number.isFinite(alerts) && alerts > 0) this.m.silencedAlerts.inc({ channel }, alerts);
  }

  /** Redis lost shelfwatch's state (state-loss.ts). */
  stateLost(): void {
    this.m.stateLosses.inc();
  }

  /** Commands Redis refused with OOM, and whether the last write probe went through. */
  redisOom(count: number): void {
    if (Number.isFinite(count) && count > 0) this.m.redisOom.inc(count);
  }

  redisWritable(writable: boolean): void {
    this.m.redisWritable.set(writable ? 1 : 0);
  }

  /** The configuration revision in force here, and whether a newer one failed to apply. */
  configRevision(revision: number, failing: boolean): void {
    this.m.configRevision.set(revision);
    this.m.configRevisionFailing.set(failing ? 1 : 0);
  }

  clockSkew(seconds: number): void {
    if (Number.isFinite(seconds)) this.m.clockSkew.set(seconds);
  }

  /** The exposition text; reads every source first. */
  async text(): Promise<string> {
    const [budget, queues, channels, workers, books] = await Promise.all([
      this.read(this.sources.budget),
      this.read(this.sources.queues),
      this.read(this.sources.channels),
      this.read(this.sources.workersRunning),
      this.read(this.sources.books),
    ]);
    const m = this.m;
    // From here to metrics() nothing awaits, so a concurrent scrape cannot interleave its values.
    const budgetGauges = [m.budgetMinuteUsed, m.budgetMonthUsed, m.budgetMonthRemaining, m.budgetPaused];
    this.fill(budgetGauges, budget, (rows) => {
      for (const row of rows) {
        const labels = { workspace: row.workspace };
        m.budgetMinuteUsed.set(labels, row.minuteUsed);
        m.budgetMonthUsed.set(labels, row.monthUsed);
        if (row.monthRemaining !== undefined) m.budgetMonthRemaining.set(labels, row.monthRemaining);
        m.budgetPaused.set(labels, row.paused ? 1 : 0);
      }
    });
    this.fill([m.queueJobs], queues, (rows) => {
      for (const row of rows) {
        for (const state of QUEUE_STATES) {
          const count = row.counts[state];
          if (count !== undefined) m.queueJobs.set({ queue: row.queue, state }, count);
        }
      }
    });
    this.fill([m.channelDisabled], channels, (rows) => {
      for (const row of rows) m.channelDisabled.set({ channel: row.channel }, row.disabled ? 1 : 0);
    });
    this.fill([m.workersRunning], workers, (count) => m.workersRunning.set(count));
    if (this.sources.books !== undefined) this.fillBooks(books);
    return this.registry.metrics();
  }

  /** Per-book gauges up to the cap: a book's series are all in or all out, never half. */
  private fillBooks(read: { value: readonly BookSample[] } | undefined): void {
    const m = this.m;
    const gauges = [m.bookBsr, m.bookReviews, m.bookRating, m.bookRoyalties];
    this.fill(gauges, read, (rows) => {
      let series = 0;
      let dropped = 0;
      for (const row of rows) {
        const labels = { workspace: row.workspace, asin: row.asin, marketplace: row.marketplace };
        const values = [row.bsr, row.reviewCount, row.rating].filter((v) => v !== null).length;
        const count = values + row.royalties.length;
        if (series + count > this.maxBookSeries) {
          dropped += count;
          continue;
        }
        series += count;
        if (row.bsr !== null) m.bookBsr.set(labels, row.bsr);
        if (row.reviewCount !== null) m.bookReviews.set(labels, row.reviewCount);
        if (row.rating !== null) m.bookRating.set(labels, row.rating);
        for (const r of row.royalties) m.bookRoyalties.set({ ...labels, currency: r.currency }, r.amount);
      }
      m.bookSeriesDropped.set(dropped);
    });
  }

  private async read<T>(source: Source<T> | undefined): Promise<{ value: T } | undefined> {
    if (source === undefined) return undefined;
    try {
      const value = await withTimeout(
        Promise.resolve().then(source),
        this.collectTimeoutMs,
        'metrics source',
      );
      return { value };
    } catch {
      return undefined;
    }
  }

  /** Replaces the gauges' values; a source that failed leaves them empty rather than stale. */
  private fill<T>(gauges: readonly Gauge[], read: { value: T } | undefined, apply: (value: T) => void): void {
    const clear = () => {
      for (const gauge of gauges) {
        gauge.reset();
        // reset() gives a label-less gauge a 0 sample again; "unknown" must not read as 0 workers.
        if (gauge === this.m.workersRunning) gauge.remove();
      }
    };
    clear();
    if (read === undefined) return;
    try {
      apply(read.value);
    } catch {
      clear();
    }
  }
}
