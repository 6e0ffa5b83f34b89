/**
 * The environment-only mode: one workspace configured from variables, for a container or a quick
 * try without a file. It builds the same raw object a file would hold and goes through the same
 * schema, so the checks and messages are the same; only the paths are renamed to the variables.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The variables this mode reads; their presence is what "configured by the environment" means. */
export const ENV_VARIABLES = [
  'PUBLISHING_API_BASE_URL',
  'PUBLISHING_API_KEY',
  'PUBLISHING_API_PLAN',
  'REDIS_URL',
  'SLACK_WEBHOOK_URL',
  'SMTP_URL',
  'ALERT_EMAIL_FROM',
  'ALERT_EMAIL_TO',
  'SHELFWATCH_ASINS',
  'SHELFWATCH_CAMPAIGNS',
] as const;

/** The id of the one workspace of this mode (it appears in logs, keys and alerts). */
export const ENV_WORKSPACE_ID = 'default';

export interface EnvConfig {
  raw: Record<string, unknown>;
  /** The variable a config path (`workspaces[0].apiKey`) came from; undefined keeps the path. */
  variableFor(path: string): string | undefined;
}

const WORKSPACE_VARIABLES: Readonly<Record<string, string>> = {
  baseUrl: 'PUBLISHING_API_BASE_URL',
  apiKey: 'PUBLISHING_API_KEY',
  plan: 'PUBLISHING_API_PLAN',
  books: 'SHELFWATCH_ASINS',
  sales: 'SHELFWATCH_ASINS',
  campaigns: 'SHELFWATCH_CAMPAIGNS',
};

function value(env: Env, name: string): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** `B0CJ4XQ2ZK,B0CJ4XQ2ZK:UK,B0DEF12345` → one book per ASIN with its marketplaces (default US). */
function books(text: string | undefined): Record<string, unknown>[] {
  const byAsin = new Map<string, string[]>();
  for (const item of list(text)) {
    const [asin = '', marketplace] = item.split(':').map((part) => part.trim());
    const marketplaces = byAsin.get(asin) ?? [];
    const wanted = marketplace === undefined || marketplace === '' ? 'US' : marketplace;
    if (!marketplaces.includes(wanted)) marketplaces.push(wanted);
    byAsin.set(asin, marketplaces);
  }
  return [...byAsin].map(([asin, marketplaces]) => ({ asin, marketplaces }));
}

/** Undefined when none of the variables is set: then nothing is configured at all. */
export function configFromEnv(env: Env): EnvConfig | undefined {
  if (!ENV_VARIABLES.some((name) => value(env, name) !== undefined)) return undefined;
  const channels: Record<string, unknown>[] = [];
  const channelVariables = new Map<number, Record<string, string>>();
  const slack = value(env, 'SLACK_WEBHOOK_URL');
  if (slack !== undefined) {
    channelVariables.set(channels.length, { webhookUrl: 'SLACK_WEBHOOK_URL' });
    channels.push({ id: 'slack', type: 'slack', webhookUrl: slack });
  }
  const smtpUrl = value(env, 'SMTP_URL');
  const from = value(env, 'ALERT_EMAIL_FROM');
  const to = value(env, 'ALERT_EMAIL_TO');
  if (smtpUrl !== undefined || from !== undefined || to !== undefined) {
    channelVariables.set(channels.length, {
      smtpUrl: 'SMTP_URL',
      from: 'ALERT_EMAIL_FROM',
      to: 'ALERT_EMAIL_TO',
    });
    channels.push({ id: 'email', type: 'email', smtpUrl, from, to: to === undefined ? undefined : list(to) });
  }
  const redisUrl = value(env, 'REDIS_URL');
  const raw: Record<string, unknown> = {
    ...(redisUrl === undefined ? {} : { redis: { url: redisUrl } }),
    workspaces: [
      {
        id: ENV_WORKSPACE_ID,
        baseUrl: value(env, 'PUBLISHING_API_BASE_URL'),
        apiKey: value(env, 'PUBLISHING_API_KEY'),
        plan: value(env, 'PUBLISHING_API_PLAN') ?? 'studio',
        books: books(value(env, 'SHELFWATCH_ASINS')),
        campaigns: list(value(env, 'SHELFWATCH_CAMPAIGNS')).map((id) => ({ id })),
      },
    ],
    ...(channels.length === 0 ? {} : { channels }),
  };
  return {
    raw,
    variableFor(path) {
      if (path === 'redis.url') return 'REDIS_URL';
      const workspaceKey = /^workspaces\[0\]\.(\w+)/.exec(path)?.[1];
      if (workspaceKey !== undefined) return WORKSPACE_VARIABLES[workspaceKey];
      const channel = /^channels\[(\d+)\]\.(\w+)/.exec(path);
      if (channel !== null) return channelVariables.get(Number(channel[1]))?.[channel[2] ?? ''];
      return undefined;
    },
  };
}
