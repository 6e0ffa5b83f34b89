// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * The one schema of `shelfwatch.yaml` (and of the environment-only mode, which builds the same raw
 * object). Parsing it gives the typed config every other module receives; `json-schema.ts` exports
 * its input side for editors.
 */
import { z } from 'zod';
import { DIGEST_CHAT_TYPES } from '../channels/digest-message.ts';
import { boolField, intField, urlField } from '../config-kit/fields.ts';
import { defaultRules, duration, rulesSchema } from '../rules/config.ts';
import { DAY_MS } from '../util/time-units.ts';
import { channelSchema, DEFAULT_CHANNELS, digestSchema, routeSchema } from './channels.ts';
import { alertLogSchema, consoleSchema } from './console.ts';
import { muteWindowSchema } from './mute-windows.ts';
import { peopleSchema } from './people.ts';
import { checkPeople } from './people-check.ts';
import { resolvePeople } from './people-resolve.ts';
import { checkReference, checkUnique, recordAt, stringsAt } from './references.ts';
import { checkShards, type ShardsConfig, shardsSchema } from './shards.ts';
import { type WorkspaceConfig, workspaceSchema } from './workspace.ts';

export const redisSchema = z
  .strictObject({
    url: urlField(['redis', 'rediss'], 'redis://127.0.0.1:6379')
      .default('redis://127.0.0.1:6379')
      .meta({ description: 'redis:// or rediss:// URL, e.g. ${REDIS_URL}.' }),
    prefix: z
      .string()
      .regex(/^[^:\s]\S*$/, 'expected a key prefix without spaces that does not start with ":"')
      .refine((prefix) => !prefix.includes('{') || /\{[^{}]+\}/.test(prefix), {
        message: 'expected a Redis Cluster hash tag to enclose some text, such as "{shelfwatch}"',
      })
      .default('{shelfwatch}')
      .meta({ description: 'Key prefix; a {hash tag} keeps each queue in one Redis Cluster slot.' }),
    cluster: boolField()
      .prefault(false)
      .meta({ description: 'Redis Cluster: url names one seed node; the prefix must carry a {hash tag}.' }),
    shards: shardsSchema
      .prefault({})
      .meta({ description: 'Workspaces spread over hash tags, one per shard (see docs/scaling.md).' }),
  })
  .refine((redis) => !redis.cluster || /\{[^{}]+\}/.test(redis.prefix), {
    message: 'expected a prefix with a {hash tag} on Redis Cluster, such as "{shelfwatch}"',
    path: ['prefix'],
    params: { hint: "BullMQ's and shelfwatch's multi-key scripts need their keys in one slot" },
  });

const serverSchema = z.strictObject({
  host: z.string().trim().min(1, 'expected a host name or address').default('127.0.0.1'),
  port: intField(0, 65_535).prefault(9464),
  allowedHosts: z
    .array(
      z
        .string()
        .trim()
        .toLowerCase()
        .regex(/^[a-z0-9.-]+$/, 'expected a host name such as worker-1'),
    )
    .default([])
    .meta({
      description:
        'Host names a scraper may use for /metrics (IP addresses and localhost always pass; others get 421).',
    }),
  bookMetrics: z
    .strictObject({
      enabled: boolField().prefault(false),
      maxSeries: intField(1, 100_000).prefault(2_000),
    })
    .prefault({})
    .meta({
      description:
        "Per-book gauges on /metrics (BSR, reviews, rating, yesterday's royalties per currency), off by default; at most maxSeries series.",
    }),
});

const workersSchema = z.strictObject({
  pollConcurrency: intField(1, 256).prefault(4),
  deliverConcurrency: intField(1, 256).prefault(4),
});

const historySchema = z.strictObject({
  retention: duration
    .pipe(z.number().min(DAY_MS, 'expected a retention of at least 1d'))
    .prefault('730d')
    .meta({ description: 'How long rank and BSR history is kept for charts and export (default 730d).' }),
  hourly: duration
    .pipe(z.number().min(DAY_MS, 'expected an hourly window of at least 1d'))
    .prefault('30d')
    .meta({
      description:
        'How long hourly points are kept before a worker turns each day into its min/median/max (default 30d).',
    }),
});

const baseSchema = z.strictObject({
  redis: redisSchema.prefault({}).meta({ description: 'Redis for queues, budgets and snapshots.' }),
  workspaces: z
    .array(workspaceSchema)
    .min(1, 'expected at least one workspace')
    .meta({ description: 'One entry per API key: what to watch and how often.' }),
  rules: rulesSchema.default(defaultRules).meta({ description: 'Rules for every workspace.' }),
  channels: z
    .array(channelSchema)
    .min(1, 'expected at least one channel')
    .prefault(DEFAULT_CHANNELS)
    .meta({ description: 'Where alerts can go: log, slack, email, outbox. Default: one log channel.' }),
  routes: z
    .array(routeSchema)
    .min(1, 'expected at least one route (leave routes out to send every alert to every channel)')
    .optional()
    .meta({ description: 'Which alerts go to which channels. Default: every alert to every channel.' }),
  digest: digestSchema
    .prefault({ enabled: false })
    .meta({ description: 'The daily digest (off unless set).' }),
  server: serverSchema.prefault({}).meta({ description: 'HTTP server for /healthz and /metrics.' }),
  workers: workersSchema.prefault({}).meta({ description: 'Jobs each worker process runs at once.' }),
  muteWindows: z
    .array(muteWindowSchema)
    .default([])
    .meta({ description: 'Recurring windows in which matching alerts are silenced (recorded, not sent).' }),
  history: historySchema
    .prefault({})
    .meta({ description: 'Rank, BSR and sales history kept for charts and export: hourly, then daily.' }),
  console: consoleSchema.prefault({}).meta({ description: 'The web console (`shelfwatch console`).' }),
  alertLog: alertLogSchema.prefault({}).meta({ description: 'The log of alerts the console shows.' }),
  people: peopleSchema
    .prefault({})
    .meta({ description: 'People: their own alerts, digest and console sign-in (docs/people.md).' }),
});

type Ctx = z.RefinementCtx<z.output<typeof baseSchema>>;

/** Channels that can carry the digest: the full report (email, outbox) or its compact form (chat). */
const DIGEST_CHANNEL_TYPES: readonly string[] = ['email', 'outbox', ...DIGEST_CHAT_TYPES];

/**
 * Cross-references between sections. It runs even when other parts are invalid (`when`), so one
 * run reports every problem; that is why it reads the value defensively.
 */
function crossCheck(config: z.output<typeof baseSchema>, ctx: Ctx): void {
  if (typeof config !== 'object' || config === null) return;
  const raw = config as unknown as Record<string, unknown>;
  const workspaceIds = stringsAt(raw.workspaces, 'id');
  const channelIds = stringsAt(raw.channels ?? DEFAULT_CHANNELS, 'id');
  checkUnique(workspaceIds, ['workspaces'], 'workspace', ctx);
  checkUnique(channelIds, ['channels'], 'channel', ctx);
  const knownWorkspaces = workspaceIds.filter((id) => id !== undefined);
  const knownChannels = channelIds.filter((id) => id !== undefined);
  const redis = (raw.redis ?? {}) as { prefix?: unknown; shards?: Partial<ShardsConfig> };
  const shards = redis.shards;
  if (
    typeof redis.prefix === 'string' &&
    typeof shards?.count === 'number' &&
    typeof shards.pin === 'object'
  ) {
    for (const problem of checkShards(shards as ShardsConfig, redis.prefix, knownWorkspaces))
      ctx.addIssue({
        code: 'custom',
        path: problem.path,
        message: problem.message,
        params: { hint: problem.hint },
      });
  }

  const routes = Array.isArray(raw.routes) ? (raw.routes as unknown[]) : [];
  routes.forEach((route, index) => {
    if (typeof route !== 'object' || route === null) return;
    const { match, channels } = route as Record<string, unknown>;
    if (typeof match === 'object' && match !== null) {
      const workspace = (match as Record<string, unknown>).workspace;
      checkReference(workspace, knownWorkspaces, ['routes', index, 'match', 'workspace'], 'workspace', ctx);
    }
    if (Array.isArray(channels)) {
      channels.forEach((channel: unknown, at) => {
        checkReference(channel, knownChannels, ['routes', index, 'channels', at], 'channel', ctx);
      });
    }
  });

  const windows = Array.isArray(raw.muteWindows) ? (raw.muteWindows as unknown[]) : [];
  windows.forEach((window, index) => {
    const match =
      typeof window === 'object' && window !== null ? (window as Record<string, unknown>).match : null;
    if (typeof match !== 'object' || match === null) return;
    const workspace = (match as Record<string, unknown>).workspace;
    checkReference(
      workspace,
      knownWorkspaces,
      ['muteWindows', index, 'match', 'workspace'],
      'workspace',
      ctx,
    );
  });

  checkPeople({ ...raw, channels: raw.channels ?? DEFAULT_CHANNELS }, ctx);

  const digest = (raw.digest ?? {}) as Record<string, unknown>;
  const recipients = Array.isArray(digest.recipients) ? (digest.recipients as unknown[]) : [];
  stringsAt(recipients, 'workspace').forEach((id, index) => {
    checkReference(id, knownWorkspaces, ['digest', 'recipients', index, 'workspace'], 'workspace', ctx);
  });
  const channelList = (Array.isArray(raw.channels) ? raw.channels : DEFAULT_CHANNELS) as unknown[];
  stringsAt(recipients, 'channel').forEach((id, index) => {
    checkReference(id, knownChannels, ['digest', 'recipients', index, 'channel'], 'channel', ctx);
    const type = recordAt(channelList[channelIds.indexOf(id)]).type;
    if (id !== undefined && typeof type === 'string' && !DIGEST_CHANNEL_TYPES.includes(type))
      ctx.addIssue({
        code: 'custom',
        path: ['digest', 'recipients', index, 'channel'],
        message: `expected a channel of type ${DIGEST_CHANNEL_TYPES.join(', ')} (the digest's), got "${id}" of type ${type}`,
        params: { hint: 'send the digest through an email, outbox, slack, discord or teams channel' },
      });
  });
  const peopleDigest = (
    Array.isArray(recordAt(raw.people).subscriptions) ? (recordAt(raw.people).subscriptions as unknown[]) : []
  ).some((sub) => recordAt(sub).digest === true);
  if (
    digest.enabled === true &&
    Array.isArray(digest.recipients) &&
    recipients.length === 0 &&
    !peopleDigest
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['digest', 'recipients'],
      message: 'expected at least one recipient while the digest is enabled, got none',
      params: { hint: 'add {workspace, channel} recipients, or set digest.enabled: false' },
    });
  }
}

/** Fills what depends on other sections: the catch-all route, recipients' time zones, people's channels. */
function resolve(config: z.output<typeof baseSchema>) {
  const zoneOf = new Map(config.workspaces.map((ws) => [ws.id, ws.timeZone]));
  const zones = new Set(zoneOf.values());
  const [onlyZone] = zones;
  const people = resolvePeople(
    config.people,
    config.channels,
    zones.size === 1 ? (onlyZone ?? 'UTC') : 'UTC',
  );
  const personRecipients = people.recipients.flatMap(({ workspace, channel, timeZone }) =>
    (workspace === undefined ? [...zoneOf.keys()] : [workspace]).map((ws) => ({
      workspace: ws,
      channel,
      timeZone,
    })),
  );
  return {
    ...config,
    // People's channels come after the catch-all route is made: it is the team's, not theirs.
    channels: [...config.channels, ...people.channels],
    people: people.people,
    routes: config.routes ?? [
      {
        match: {},
        channels: config.channels.map((channel) => channel.id),
        digestOnly: false,
        hideLowStarText: false,
      },
    ],
    digest: {
      ...config.digest,
      enabled: config.digest.enabled || personRecipients.length > 0,
      recipients: [
        ...config.digest.recipients.map((recipient) => ({
          ...recipient,
          timeZone: recipient.timeZone ?? zoneOf.get(recipient.workspace) ?? 'UTC',
        })),
        ...personRecipients,
      ],
    },
  };
}

export const configSchema = baseSchema.superRefine(crossCheck, { when: () => true }).transform(resolve);

export type ShelfwatchConfig = z.output<typeof configSchema>;
export type ShelfwatchConfigInput = z.input<typeof configSchema>;
export type { ChannelConfig, EmailChannelConfig, RouteConfig, SlackChannelConfig } from './channels.ts';
export type { Role } from './people.ts';
export type { Person, ResolvedPeople } from './people-resolve.ts';
export type { BookConfig, KeywordSelection, Plan, WorkspaceConfig } from './workspace.ts';

/** A workspace id that is not in the config: a caller's mistake, never retried. */
export class UnknownWorkspaceError extends Error {
  override readonly name = 'UnknownWorkspaceError';
}

/** The workspace with this id, or an UnknownWorkspaceError. */
export function workspaceOf(config: Pick<ShelfwatchConfig, 'workspaces'>, id: string): WorkspaceConfig {
  const ws = config.workspaces.find((w) => w.id === id);
  if (ws === undefined) throw new UnknownWorkspaceError(`no workspace "${id}" in the config`);
  return ws;
}
