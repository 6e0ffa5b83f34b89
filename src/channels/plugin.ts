/**
 * What a delivery channel is to the rest of shelfwatch: one file per channel exporting a
 * `ChannelPlugin` (its config schema, its pacing, how to build its notifier), and one line in
 * `registry.ts`. The config schema, JSON Schema, pacing and `test-alert` all read the registry.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Secret } from '../config-kit/secret.ts';
import type { Logger } from '../ops/logger.ts';
import type { Clock } from '../util/clock.ts';
import type { Notifier } from './notifier.ts';
import type { SmtpPool } from './smtp-pool.ts';

/** What a channel may need to send: the process's shared resources, never another channel's. */
export interface ChannelDeps {
  logger: Logger;
  smtp: SmtpPool;
  clock: Clock;
  /** HTTP channels post through this pool when given (tests); otherwise each owns one. */
  dispatcher?: Dispatcher | undefined;
}

/** How often one endpoint may take a message, from the service's documented limits. */
export interface ChannelPace {
  /** Least time from the end of one send to the start of the next. */
  minIntervalMs: number;
  /** Channels posting to the same endpoint share it; a hash, never a URL or token. */
  paceKey: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a channel schema is any strict object; its output type is what matters.
export type ChannelSchema = z.ZodObject<any, z.core.$strict>;

export interface ChannelPlugin<S extends ChannelSchema = ChannelSchema> {
  /** The config's `type`, the same literal as in `schema`. */
  readonly type: string;
  /** The channel's config: `deliveryFields`, `type: z.literal(…)` and its own fields, strict. */
  readonly schema: S;
  pace(config: z.output<S>): ChannelPace;
  create(config: z.output<S>, deps: ChannelDeps): Notifier;
}

/** Identity, for inference: `defineChannel({ schema, create(config) {…} })` types `config`. */
export function defineChannel<S extends ChannelSchema>(plugin: ChannelPlugin<S>): ChannelPlugin<S> {
  return plugin;
}

/** A pacing key from an endpoint's secret parts: two channels on one webhook share one pace. */
export function endpointKey(type: string, ...parts: readonly string[]): string {
  return `${type}-${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16)}`;
}

/** Pacing of a channel whose secret webhook URL is its endpoint: channels on one URL share a pace. */
export function pacePerWebhook(
  type: string,
  minIntervalMs: number,
): (config: { webhookUrl: Secret }) => ChannelPace {
  return (config) => ({ minIntervalMs, paceKey: endpointKey(type, config.webhookUrl.reveal()) });
}

/** No limit known: messages go as fast as they are flushed, each channel on its own key. */
export function unpaced(config: { id: string }): ChannelPace {
  return { minIntervalMs: 0, paceKey: config.id };
}
