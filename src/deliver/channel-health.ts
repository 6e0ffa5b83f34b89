import type { Cluster, Redis } from 'ioredis';
import type { DeliveryError } from '../channels/notifier.ts';
import { channelPace } from '../channels/registry.ts';
import type { ChannelConfig } from '../config/schema.ts';
import type { GroupWindow } from '../config-kit/channel-fields.ts';
import { ALERT_KINDS, type Alert, type AlertKind } from '../model/alert.ts';
import { fingerprint } from '../rules/fingerprint.ts';
import { SOURCE_KINDS } from '../rules/source-health.ts';
import { disabledChannelKey } from './keys.ts';
import type { ChannelSettings } from './processor.ts';

/**
 * Channels broken for good (a Slack webhook whose channel was deleted or archived): marked in Redis
 * so every worker stops sending there at once, until an operator retries its dead letters.
 */
export class ChannelHealth {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
  ) {}

  private key(channelId: string): string {
    return disabledChannelKey(this.prefix, channelId);
  }

  async disable(channelId: string, reason: string): Promise<void> {
    await this.redis.set(this.key(channelId), reason);
  }

  async enable(channelId: string): Promise<void> {
    await this.redis.del(this.key(channelId));
  }

  disabledReason(channelId: string): Promise<string | null> {
    return this.redis.get(this.key(channelId));
  }
}

/** The health alert sent through the other channels when one is disabled. */
export function channelDisabledAlert(channelId: string, error: DeliveryError, nowMs: number): Alert {
  const subject = { targetId: `channel/${channelId}` };
  const day = new Date(nowMs).toISOString().slice(0, 10);
  return {
    fingerprint: fingerprint({
      workspace: '*',
      ruleId: 'channel-health',
      kind: SOURCE_KINDS.failing,
      subject,
      observation: `disabled:${error.status ?? 'unknown'}:${day}`,
    }),
    workspace: '*',
    ruleId: 'channel-health',
    kind: SOURCE_KINDS.failing,
    severity: 'critical',
    status: 'firing',
    subject,
    title: `Channel "${channelId}" refused delivery for good (${error.status ?? 'error'}) and was disabled`,
    facts: { channel: channelId, status: error.status ?? null, reason: error.message.slice(0, 300) },
    observedAt: nowMs,
  };
}

/** The zone every workspace shares, or UTC when they differ (or there are none). */
export function sharedTimeZone(workspaces: readonly { timeZone: string }[]): string {
  const zones = new Set(workspaces.map((ws) => ws.timeZone));
  const [only] = zones;
  return zones.size === 1 && only !== undefined ? only : 'UTC';
}

/**
 * Grouping and quiet hours from the config; pacing from each channel's plug-in (its documented
 * limits). `defaultTimeZone`: the zone of a channel that sets none (the workspaces' zone when they
 * share one; messages may mix workspaces, so a channel cannot follow each alert's own).
 */
export function channelSettings(
  channels: readonly ChannelConfig[],
  defaultTimeZone = 'UTC',
): Map<string, ChannelSettings> {
  const settings = new Map<string, ChannelSettings>();
  for (const channel of channels) {
    settings.set(channel.id, {
      groupWaitMs: channel.groupWait,
      groupIntervalMs: channel.groupInterval,
      ...(channel.groupWindows === undefined ? {} : { groupWindows: groupWindowsMs(channel.groupWindows) }),
      ...(channel.quietHours === undefined ? {} : { quietHours: channel.quietHours }),
      ...channelPace(channel),
      timeZone: channel.timeZone ?? defaultTimeZone,
      ...(channel.locale === undefined ? {} : { locale: channel.locale }),
    });
  }
  return settings;
}

/** The config's per-kind windows in the settings' names; kinds that set neither are left out. */
function groupWindowsMs(
  windows: Partial<Record<AlertKind, GroupWindow | undefined>>,
): NonNullable<ChannelSettings['groupWindows']> {
  const out: NonNullable<ChannelSettings['groupWindows']> = {};
  for (const kind of ALERT_KINDS) {
    const window = windows[kind];
    if (window === undefined || (window.groupWait === undefined && window.groupInterval === undefined))
      continue;
    out[kind] = {
      ...(window.groupWait === undefined ? {} : { groupWaitMs: window.groupWait }),
      ...(window.groupInterval === undefined ? {} : { groupIntervalMs: window.groupInterval }),
    };
  }
  return out;
}
