/**
 * Builds one digest: gather (sales through the budget, the rest from snapshots), compute the
 * figures, draw the charts, render subject, text and HTML. Sends nothing and stores nothing.
 */
import type { AnalyticsClient } from '../api/index.ts';
import type { ReserveWalk } from '../budget/gate.ts';
import type { RedisRequestBudget } from '../budget/request-budget.ts';
import type { Notifier } from '../channels/notifier.ts';
import type { SmtpPool } from '../channels/smtp-pool.ts';
import { type ShelfwatchConfig, workspaceOf } from '../config/schema.ts';
import type { Logger } from '../ops/logger.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { Clock } from '../util/clock.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { type DigestChart, digestCharts } from './charts.ts';
import { digestDay } from './dates.ts';
import { computeFigures, lastDigestOf } from './figures.ts';
import { type GatherDeps, gatherInputs } from './gather.ts';
import type { DigestStateStore } from './state.ts';
import { renderDigest } from './template.ts';
import type { DigestFigures, LastDigest } from './types.ts';

/** A digest recipient as the config resolves it (its time zone defaults to the workspace's). */
export interface DigestRecipient {
  workspace: string;
  channel: string;
  timeZone: string;
}

export interface DigestDeps {
  config: ShelfwatchConfig;
  clientFor(workspace: string): AnalyticsClient;
  store: SnapshotStore;
  budget: RedisRequestBudget;
  redis: GatherDeps['redis'];
  prefix: KeyPrefix;
  state: DigestStateStore;
  /** The shared SMTP pool (only `sendMail` is used). */
  smtp: Pick<SmtpPool, 'sendMail'>;
  /** The process's notifier of a chat channel (Slack, Discord, Teams), for the compact digest. */
  notifierFor?: (channelId: string) => Pick<Notifier, 'sendDigest'> | undefined;
  clock: Clock;
  logger: Logger;
  /** The budget reservation the poller's walks use; the digest's sales walk runs inside it. */
  reserveWalk?: ReserveWalk;
}

/** An inline image as nodemailer takes it; `cid` matches `cid:` in the HTML. */
export interface DigestAttachment {
  filename: string;
  content: Buffer;
  contentType: 'image/png';
  cid: string;
  contentDisposition: 'inline';
}

export interface BuiltDigest {
  subject: string;
  text: string;
  html: string;
  attachments: DigestAttachment[];
  figures: DigestFigures;
  /** To store as "the last digest" once the send succeeded. */
  last: LastDigest;
}

function attachmentOf(chart: DigestChart): DigestAttachment {
  return {
    filename: chart.filename,
    content: chart.png,
    contentType: 'image/png',
    cid: chart.cid,
    contentDisposition: 'inline',
  };
}

export async function buildDigest(
  deps: Omit<DigestDeps, 'state' | 'smtp'> & { state: Pick<DigestStateStore, 'getLast'> },
  request: {
    workspace: string;
    recipient: DigestRecipient;
    nowMs: number;
    /** The local date to report; default: the recipient's yesterday at `nowMs`. */
    day?: string;
    signal?: AbortSignal;
  },
): Promise<BuiltDigest> {
  const ws = workspaceOf(deps.config, request.workspace);
  const { recipient, nowMs } = request;
  const day = request.day ?? digestDay(nowMs, recipient.timeZone);
  const previous = await deps.state.getLast(ws.id, recipient.channel);
  const inputs = await gatherInputs(
    {
      client: deps.clientFor(ws.id),
      store: deps.store,
      budget: deps.budget,
      redis: deps.redis,
      prefix: deps.prefix,
      clock: deps.clock,
      reserveWalk: deps.reserveWalk,
    },
    {
      workspace: ws,
      timeZone: recipient.timeZone,
      day,
      nowMs,
      previous,
      signal: request.signal ?? new AbortController().signal,
    },
  );
  const figures = computeFigures(inputs);
  const charts = digestCharts(figures);
  const rendered = renderDigest(figures, charts);
  const attachments = [...charts.royalties.values(), ...charts.bsr.values()].map(attachmentOf);
  return { ...rendered, attachments, figures, last: lastDigestOf(inputs) };
}
