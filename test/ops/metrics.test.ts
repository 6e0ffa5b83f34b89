import { register as globalRegister } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/ops/metrics.ts';
import { family, parseExposition, sampleValue } from './exposition.ts';

const BOOK = 'GET /v1/books/{asin}';

function bare(options: ConstructorParameters<typeof Metrics>[0] = {}): Metrics {
  return new Metrics({ defaultMetrics: false, ...options });
}

describe('recorded families', () => {
  it('api requests: a counter by workspace, endpoint and status, and a duration histogram', async () => {
    const metrics = bare();
    metrics.apiRequest('ws1', BOOK, 200, 120);
    metrics.apiRequest('ws1', BOOK, 200, 80);
    metrics.apiRequest('ws1', BOOK, 429, 10);
    const text = await metrics.text();
    const { types } = parseExposition(text);
    expect(types.get('shelfwatch_api_requests_total')).toBe('counter');
    expect(types.get('shelfwatch_api_request_duration_seconds')).toBe('histogram');
    expect(family(text, 'shelfwatch_api_requests_total')).toEqual([
      { labels: { workspace: 'ws1', endpoint: BOOK, status: '200' }, value: 2 },
      { labels: { workspace: 'ws1', endpoint: BOOK, status: '429' }, value: 1 },
    ]);
    const labels = { workspace: 'ws1', endpoint: BOOK };
    expect(sampleValue(text, 'shelfwatch_api_request_duration_seconds_count', labels)).toBe(3);
    expect(sampleValue(text, 'shelfwatch_api_request_duration_seconds_sum', labels)).toBeCloseTo(0.21, 6);
    expect(
      sampleValue(text, 'shelfwatch_api_request_duration_seconds_bucket', { ...labels, le: '0.1' }),
    ).toBe(2);
    expect(
      sampleValue(text, 'shelfwatch_api_request_duration_seconds_bucket', { ...labels, le: '+Inf' }),
    ).toBe(3);
  });

  it('polls: a counter by workspace, kind and outcome', async () => {
    const metrics = bare();
    metrics.poll('ws1', 'book', 'ok');
    metrics.poll('ws1', 'book', 'ok');
    metrics.poll('ws1', 'reviews', 'error');
    metrics.poll('ws2', 'sales', 'skipped');
    const text = await metrics.text();
    expect(parseExposition(text).types.get('shelfwatch_polls_total')).toBe('counter');
    expect(family(text, 'shelfwatch_polls_total')).toEqual([
      { labels: { workspace: 'ws1', kind: 'book', outcome: 'ok' }, value: 2 },
      { labels: { workspace: 'ws1', kind: 'reviews', outcome: 'error' }, value: 1 },
      { labels: { workspace: 'ws2', kind: 'sales', outcome: 'skipped' }, value: 1 },
    ]);
  });

  it('poll lag: a histogram in seconds, a negative lag (clock skew) counted as 0', async () => {
    const metrics = bare();
    metrics.pollLag(2);
    metrics.pollLag(-0.5);
    metrics.pollLag(Number.NaN);
    const text = await metrics.text();
    expect(parseExposition(text).types.get('shelfwatch_poll_lag_seconds')).toBe('histogram');
    expect(sampleValue(text, 'shelfwatch_poll_lag_seconds_count')).toBe(2);
    expect(sampleValue(text, 'shelfwatch_poll_lag_seconds_sum')).toBe(2);
    expect(sampleValue(text, 'shelfwatch_poll_lag_seconds_bucket', { le: '0.1' })).toBe(1);
    expect(sampleValue(text, 'shelfwatch_poll_lag_seconds_bucket', { le: '5' })).toBe(2);
  });

  it('alerts: a counter by kind, incremented by the count', async () => {
    const metrics = bare();
    metrics.alerts('bsr_worsened', 3);
    metrics.alerts('bsr_worsened', 0);
    metrics.alerts('review_new', 1);
    metrics.alerts('review_new', -2);
    const text = await metrics.text();
    expect(parseExposition(text).types.get('shelfwatch_alerts_total')).toBe('counter');
    expect(family(text, 'shelfwatch_alerts_total')).toEqual([
      { labels: { kind: 'bsr_worsened' }, value: 3 },
      { labels: { kind: 'review_new' }, value: 1 },
    ]);
  });

  it('deliveries: by channel and outcome; delivered alerts only for confirmed sends', async () => {
    const metrics = bare();
    metrics.delivery('slack-launch', 'sent', 4);
    metrics.delivery('slack-launch', 'failed', 4);
    metrics.delivery('slack-launch', 'sent', 1);
    metrics.delivery('email-author', 'rejected', 2);
    const text = await metrics.text();
    const { types } = parseExposition(text);
    expect(types.get('shelfwatch_deliveries_total')).toBe('counter');
    expect(types.get('shelfwatch_delivered_alerts_total')).toBe('counter');
    expect(family(text, 'shelfwatch_deliveries_total')).toEqual([
      { labels: { channel: 'slack-launch', outcome: 'sent' }, value: 2 },
      { labels: { channel: 'slack-launch', outcome: 'failed' }, value: 1 },
      { labels: { channel: 'email-author', outcome: 'rejected' }, value: 1 },
    ]);
    expect(family(text, 'shelfwatch_delivered_alerts_total')).toEqual([
      { labels: { channel: 'slack-launch' }, value: 5 },
    ]);
  });
});

describe('process metrics and registry', () => {
  it('adds prefixed default process metrics and build info', async () => {
    const text = await new Metrics({ version: '1.2.3' }).text();
    const { types } = parseExposition(text);
    expect(types.get('shelfwatch_process_cpu_user_seconds_total')).toBe('counter');
    expect(types.get('shelfwatch_process_resident_memory_bytes')).toBe('gauge');
    expect(types.get('shelfwatch_nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(family(text, 'shelfwatch_build_info')).toEqual([{ labels: { version: '1.2.3' }, value: 1 }]);
  });

  it('keeps its own registry: two instances coexist and the global registry stays empty', async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.poll('ws1', 'book', 'ok');
    expect(
      sampleValue(await a.text(), 'shelfwatch_polls_total', {
        workspace: 'ws1',
        kind: 'book',
        outcome: 'ok',
      }),
    ).toBe(1);
    expect(family(await b.text(), 'shelfwatch_polls_total')).toEqual([]);
    expect(globalRegister.getSingleMetric('shelfwatch_polls_total')).toBeUndefined();
    expect(globalRegister.getSingleMetric('shelfwatch_process_cpu_user_seconds_total')).toBeUndefined();
  });

  it('names its content type as Prometheus text 0.0.4', () => {
    expect(bare().contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
