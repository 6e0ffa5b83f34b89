/**
 * The digest's line on silenced alerts: read from the silence store for the recipient's local
 * digest day (no API request), this workspace only, each alert once however many channels.
 */
import { describe, expect, it } from 'vitest';
import type { AnalyticsClient } from '../../src/api/index.ts';
import type { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { digestCharts } from '../../src/digest/charts.ts';
import { computeFigures } from '../../src/digest/figures.ts';
import { gatherInputs } from '../../src/digest/gather.ts';
import { renderDigest } from '../../src/digest/template.ts';
import { SilenceStore } from '../../src/silence/store.ts';
import { RedisSnapshotStore } from '../../src/snapshot/store.ts';
import { makeAlert } from '../deliver/pipeline-harness.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const prefix = testPrefix('silence-digest');
const redis = testRedis(prefix);

describe('digest', () => {
  it('says how many alerts were silenced on the local digest day, and why', async () => {
    const config = parseOrThrow({
      redis: { prefix },
      workspaces: [
        {
          id: 'ws',
          baseUrl: 'http://127.0.0.1:9',
          apiKey: 'sk_unused',
          campaigns: [{ id: 'c' }],
          sales: false,
          timeZone: 'Europe/Berlin',
        },
      ],
    });
    const store = new SilenceStore(redis, prefix);
    const launch = { id: 's1', reason: 'launch week' };
    const arcs = { id: 's2', reason: 'ARC flood' };
    // The digest day 2026-11-21 in Berlin (UTC+1) runs from 20 Nov 23:00 UTC to 21 Nov 23:00 UTC.
    const at = (iso: string) => Date.parse(iso);
    await store.record([{ alert: makeAlert(1), match: launch }], 'slack', at('2026-11-20T23:30:00Z'));
    await store.record([{ alert: makeAlert(1), match: launch }], 'mail', at('2026-11-20T23:31:00Z'));
    await store.record(
      [
        { alert: makeAlert(2), match: launch },
        { alert: makeAlert(3), match: arcs },
      ],
      'slack',
      at('2026-11-21T12:00:00Z'),
    );
    await store.record([{ alert: makeAlert(4), match: launch }], 'slack', at('2026-11-21T23:30:00Z'));
    await store.record(
      [{ alert: makeAlert(5, { workspace: 'other' }), match: launch }],
      'slack',
      at('2026-11-21T12:00:00Z'),
    );

    const ws = config.workspaces[0];
    if (ws === undefined) throw new Error('no workspace');
    const inputs = await gatherInputs(
      {
        // Never called: the workspace watches no sales, and the rest comes from Redis.
        client: {} as AnalyticsClient,
        budget: {} as RedisRequestBudget,
        store: new RedisSnapshotStore({ redis, prefix }),
        redis,
        prefix,
        clock: { now: () => at('2026-11-22T07:00:00Z') },
      },
      {
        workspace: ws,
        timeZone: 'Europe/Berlin',
        day: '2026-11-21',
        nowMs: at('2026-11-22T07:00:00Z'),
        previous: null,
        signal: new AbortController().signal,
      },
    );
    expect(inputs.silenced).toEqual({ count: 3, reasons: ['launch week', 'ARC flood'] });
    const figures = computeFigures(inputs);
    const rendered = renderDigest(figures, digestCharts(figures));
    const line =
      'Silenced: 3 alerts recorded, not sent (launch week; ARC flood). See "shelfwatch silence list".';
    expect(rendered.text).toContain(line);
    expect(rendered.html).toContain(line.replaceAll('"', '&quot;'));
  });
});
