/**
 * Alerts are what rules produce and channels deliver. They hold no channel knowledge: rendering
 * (and escaping of the untrusted text inside) is the channel's job.
 */
import type {
  BsrRankFacts,
  BsrRemovalFacts,
  CompFacts,
  KeywordRankFacts,
  RedisWritableFacts,
  ReviewCountFacts,
  ReviewFacts,
  RoyaltyFacts,
  SalesRevisionFacts,
  SentimentFacts,
  SourceFailingFacts,
  SourceRecoveredFacts,
  StateLostFacts,
} from './alert-facts.ts';

/** Every alert kind, in one list: the config's route filter and the type are both made from it. */
export const ALERT_KINDS = [
  'keyword_rank_drop',
  'keyword_rank_recovered',
  'bsr_worsened',
  'bsr_recovered',
  'bsr_removed',
  'bsr_restored',
  'review_new',
  'review_removed',
  'review_restored',
  'review_count_down',
  'comp_overtook',
  'comp_fell_behind',
  'sentiment_shift',
  'sentiment_recovered',
  'royalty_change',
  'sales_revision',
  'source_health',
  'source_recovered',
  'state_lost',
  'redis_writable',
] as const;

export type AlertKind = (typeof ALERT_KINDS)[number];

/** The facts of each kind: a renderer reading a fact its kind does not have fails to compile. */
export interface AlertFactsByKind {
  keyword_rank_drop: KeywordRankFacts;
  keyword_rank_recovered: KeywordRankFacts;
  bsr_worsened: BsrRankFacts;
  bsr_recovered: BsrRankFacts;
  bsr_removed: BsrRemovalFacts;
  bsr_restored: BsrRemovalFacts;
  review_new: ReviewFacts;
  review_removed: ReviewFacts;
  review_restored: ReviewFacts;
  review_count_down: ReviewCountFacts;
  comp_overtook: CompFacts;
  comp_fell_behind: CompFacts;
  sentiment_shift: SentimentFacts;
  sentiment_recovered: SentimentFacts;
  royalty_change: RoyaltyFacts;
  sales_revision: SalesRevisionFacts;
  source_health: SourceFailingFacts;
  source_recovered: SourceRecoveredFacts;
  state_lost: StateLostFacts;
  redis_writable: RedisWritableFacts;
}

export type Severity = 'info' | 'warning' | 'critical';

export interface AlertSubject {
  asin?: string;
  marketplace?: string;
  keyword?: string;
  /** The comparable title a comp_overtook alert is about. */
  compAsin?: string;
  /** `rating` or `sentiment`: which reading a sentiment_shift alert is about. */
  measure?: string;
  campaignId?: string;
  reviewId?: string;
  date?: string;
  currency?: string;
  /** The poll target, for source-health alerts. */
  targetId?: string;
  /** `workspace` on source-health alerts about the whole workspace (the API paused it). */
  scope?: 'workspace';
}

interface AlertBase {
  /**
   * Deterministic identity of this observation (workspace, rule, subject, observation): the same
   * observation yields the same fingerprint across retries, restarts and replicas, so it alerts once.
   */
  fingerprint: string;
  workspace: string;
  /** The configured rule that raised it (rules of one kind may be configured several times). */
  ruleId: string;
  severity: Severity;
  /** Conditions fire and resolve; events (a new review) are always `firing`. */
  status: 'firing' | 'resolved';
  subject: AlertSubject;
  /** One line, plain text: what happened. */
  title: string;
  /** Recent points for sparklines (rank history, royalties per day), oldest first. */
  series?: number[];
  observedAt: number;
  /**
   * Conditions only: the episode (its last clear poll) this fire, repeat or resolve belongs to.
   * With workspace, rule and subject it names one firing condition, which `snooze` mutes.
   */
  episode?: number;
}

/** An alert of kind `K`: its facts are the kind's (see `AlertFactsByKind`). */
export type AlertOf<K extends AlertKind> = AlertBase & {
  kind: K;
  /** Facts for templates, plain values (text is untrusted where it comes from the public). */
  facts: AlertFactsByKind[K];
};

/** Any alert: a union discriminated by `kind`, so `switch (alert.kind)` narrows its facts. */
export type Alert = { [K in AlertKind]: AlertOf<K> }[AlertKind];

/** Where alerts go: one delivery job per alert and channel, with ids derived from the fingerprint. */
export interface AlertSink {
  enqueue(alerts: readonly Alert[]): Promise<void>;
}
