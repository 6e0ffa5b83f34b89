/**
 * Alert storm: 10,000 alerts enqueued at once (one `addBulk`, as a poll enqueues them) to one Slack
 * webhook (a local receiver) and one SMTP server (smtp-server), through the real delivery pipeline:
 * a Runtime with its BullMQ delivery worker, group buffers, per-webhook pacing and the real Slack
 * and email channels, with the channels' default group_wait (30 s) and group_interval (5 min).
 * Measures messages sent, the most messages to the webhook in any second, time to drain, and how
 * many alerts the messages represent (alerts shown, found by a token in each title, plus the
 * "…and N more" counts), with duplicates.
 */
import { simpleParser } from 'mailparser';
import { Runtime } from '../src/app/runtime.ts';
import { startWorkers } from '../src/app/start.ts';
import type { Alert, AlertKind, Severity } from '../src/model/alert.ts';
import { silentLogger } from '../src/ops/logger.ts';
import { Shutdown } from '../src/ops/shutdown.ts';
import {
  DEFAULT_WEBHOOK_PATH,
  type ReceivedRequest,
  startHttpReceiver,
} from '../src/tools/receivers/http.ts';
import { startSmtpReceiver } from '../src/tools/receivers/smtp.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { fmt, table } from './lib/format.ts';
import { configOrThrow } from './lib/month.ts';
import { monotonicMs } from './lib/sim-process.ts';
import { busiestWindow } from './lib/stats.ts';

const MIX: [AlertKind, number, Severity][] = [
  ['keyword_rank_drop', 0.6, 'warning'],
  ['keyword_rank_recovered', 0.1, 'warning'],
  ['bsr_worsened', 0.08, 'warning'],
  ['bsr_removed', 0.02, 'warning'],
  ['review_new', 0.1, 'info'],
  ['review_removed', 0.02, 'warning'],
  ['royalty_change', 0.03, 'warning'],
  ['sales_revision', 0.03, 'info'],
  ['source_health', 0.02, 'critical'],
];
const TOKEN = /storm-(\d{6})/g;
const MORE = /and ([\d,]+) more/;

function stormAlerts(count: number): Alert[] {
  const alerts: Alert[] = [];
  let n = 0;
  for (const [kind, share, severity] of MIX) {
    const of = kind === MIX.at(-1)![0] ? count - n : Math.round(count * share);
    for (let i = 0; i < of; i++, n++) {
      const workspace = n % 2 === 0 ? 'ws-a' : 'ws-b';
      const asin = `B0STORM${String(n % 997).padStart(3, '0')}`;
      // Any kind with keyword facts: the storm measures delivery, not how each kind reads.
      alerts.push(<Alert>{
        fingerprint: `storm${String(n).padStart(6, '0')}${'0'.repeat(21)}`,
        workspace,
        ruleId: kind,
        kind,
        severity,
        status: kind.endsWith('recovered') ? 'resolved' : 'firing',
        subject: { asin, marketplace: 'US', keyword: `keyword ${n}` },
        title: `${kind.replaceAll('_', ' ')} on ${asin} (US) [storm-${String(n).padStart(6, '0')}]`,
        facts: { keyword: `keyword ${n}`, asin, marketplace: 'US', before: 3, after: 18 },
        observedAt: 1_800_000_000_000 + n,
      });
    }
  }
  return alerts;
}

interface Tally {
  messages: number;
  represented: number;
  shown: number;
  duplicates: number;
  busiestSecond: number;
  minGapMs: number;
  lastAt: number;
}

function tally(messages: readonly { at: number; text: string }[]): Tally {
  const seen = new Set<string>();
  let more = 0;
  let duplicates = 0;
  for (const { text } of messages) {
    const inMessage = new Set([...text.matchAll(TOKEN)].map((m) => m[1]!));
    for (const token of inMessage) {
      if (seen.has(token)) duplicates++;
      seen.add(token);
    }
    more += Number(MORE.exec(text)?.[1]?.replaceAll(',', '') ?? 0);
  }
  const times = messages.map((m) => m.at).sort((a, b) => a - b);
  let minGap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < times.length; i++) minGap = Math.min(minGap, times[i]! - times[i - 1]!);
  return {
    messages: messages.length,
    represented: seen.size + more,
    shown: seen.size,
    duplicates,
    busiestSecond: busiestWindow(times, 1_000),
    minGapMs: minGap,
    lastAt: times.at(-1) ?? Number.NaN,
  };
}

/** The text of a Slack payload's blocks (sections and "…and N more" context), not its fallback. */
function slackText(r: ReceivedRequest): string {
  const payload = JSON.parse(r.raw) as {
    blocks?: { text?: { text?: string }; elements?: { text?: string }[] }[];
  };
  return (payload.blocks ?? [])
    .map((b) => [b.text?.text ?? '', ...(b.elements ?? []).map((e) => e.text ?? '')].join('\n'))
    .join('\n');
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const count = ctx.quick ? 1_000 : 10_000;
  // Both stamp arrivals on the monotonic clock; mail is parsed after the storm, not while measured.
  const slack = await startHttpReceiver(DEFAULT_WEBHOOK_PATH, { clock: monotonicMs });
  ctx.defer(() => slack.close());
  const smtp = await startSmtpReceiver({ parse: false, clock: monotonicMs });
  ctx.defer(() => smtp.close());
  const timing = ctx.quick ? { groupWait: '2s', groupInterval: '10s' } : {};
  const config = configOrThrow({
    redis: { url: ctx.redisUrl, prefix: ctx.prefix() },
    workspaces: ['ws-a', 'ws-b'].map((id) => ({
      id,
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'sk_bench_unused',
      campaigns: [{ id: 'c' }],
    })),
    channels: [
      { id: 'slack', type: 'slack', webhookUrl: slack.url, allowAnyHost: true, ...timing },
      {
        id: 'email',
        type: 'email',
        smtpUrl: smtp.url,
        from: 'alerts@example.com',
        to: ['team@example.com'],
        ...timing,
      },
    ],
  });
  const runtime = new Runtime({ config, logger: silentLogger(), version: 'bench' });
  await runtime.connect();
  const shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => runtime.close());
  ctx.defer(() => shutdown.run(10_000));
  await startWorkers(runtime, shutdown, { reconcile: false });

  const alerts = stormAlerts(count);
  const start = monotonicMs();
  await runtime.pollDeps.alerts.enqueue(alerts);
  const enqueuedMs = monotonicMs() - start;
  let admittedMs = Number.NaN;
  const deadline = start + (ctx.quick ? 120_000 : 900_000);
  const represented = async () => {
    const mails = await Promise.all(
      smtp.messages.map(async (m) => ({ at: m.receivedAt, text: (await simpleParser(m.raw)).text ?? '' })),
    );
    return {
      slack: tally(slack.requests.map((r) => ({ at: r.receivedAt, text: slackText(r) }))),
      email: tally(mails),
    };
  };
  let last = await represented();
  while (monotonicMs() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (Number.isNaN(admittedMs)) {
      const counts = await runtime.deliverQueue.getJobCounts('wait', 'active');
      if ((counts.wait ?? 0) + (counts.active ?? 0) === 0) admittedMs = monotonicMs() - start;
    }
    const counts = await runtime.deliverQueue.getJobCounts('wait', 'active', 'delayed');
    if ((counts.wait ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) > 0) continue;
    last = await represented();
    if (last.slack.represented >= count && last.email.represented >= count) break;
  }
  last = await represented();
  const drained = (t: Tally) => (Number.isFinite(t.lastAt) ? (t.lastAt - start) / 1000 : Number.NaN);
  const rows = (['slack', 'email'] as const).map((channel) => {
    const t = last[channel];
    return [
      channel,
      fmt(t.messages),
      fmt(t.busiestSecond),
      Number.isFinite(t.minGapMs) ? fmt(t.minGapMs) : 'n/a',
      fmt(drained(t), 1),
      `${fmt(t.represented)} of ${fmt(count)}`,
      fmt(t.shown),
      fmt(t.duplicates),
    ];
  });
  const complete = (t: Tally) => t.represented === count && t.duplicates === 0;
  const details = [
    `${fmt(count)} alerts in ${MIX.length} kinds over 2 workspaces (${fmt(MIX.length * 2)} groups per channel), enqueued in one addBulk ` +
      `(${fmt(count * 2)} admission jobs) in ${fmt(enqueuedMs)} ms; admissions done after ${fmt(admittedMs / 1000, 1)} s; ` +
      `group_wait ${ctx.quick ? '2 s' : '30 s'}, group_interval ${ctx.quick ? '10 s' : '5 min'}, delivery concurrency ${config.workers.deliverConcurrency}.`,
    '',
    table(
      [
        'channel',
        'messages',
        'most in any 1 s',
        'least gap (ms)',
        'drained after (s)',
        'alerts represented',
        'shown',
        'duplicates',
      ],
      rows,
    ),
  ].join('\n');
  return {
    title: 'Alert storm through the delivery pipeline',
    summary: [
      {
        metric: `${fmt(count)} alerts → Slack: most messages in any second`,
        value: fmt(last.slack.busiestSecond),
        reference: `${fmt(last.slack.messages)} messages, drained in ${fmt(drained(last.slack), 1)} s`,
        goal: '≤ 1',
        met: last.slack.busiestSecond <= 1,
      },
      {
        metric: `${fmt(count)} alerts → Slack: alerts represented`,
        value: fmt(last.slack.represented),
        reference: `${fmt(last.slack.duplicates)} duplicates`,
        goal: `all ${fmt(count)}, once`,
        met: complete(last.slack),
      },
      {
        metric: `${fmt(count)} alerts → email: alerts represented`,
        value: fmt(last.email.represented),
        reference: `${fmt(last.email.messages)} messages, drained in ${fmt(drained(last.email), 1)} s`,
        goal: `all ${fmt(count)}, once`,
        met: complete(last.email),
      },
    ],
    details,
    data: { count, enqueuedMs, admittedMs, ...last },
  };
}
