// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/** The `console:` and `alertLog:` sections: the web console and the alert log it reads. */
import { z } from 'zod';
import { boolField, intField, secretField, urlField } from '../config-kit/fields.ts';
import { Secret } from '../config-kit/secret.ts';
import { MIN_TOKEN_SECRET } from '../util/signed-token.ts';

/** Addresses that only this machine reaches: the console may bind there without further say-so. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Beyond loopback the token is all that stands between the network and the console. */
export const MIN_REMOTE_TOKEN = 24;

export const consoleSchema = z
  .strictObject({
    enabled: boolField().default(false).meta({
      description: 'Serve the console from `shelfwatch run` too (`shelfwatch console` always serves it).',
    }),
    host: z
      .string()
      .trim()
      .min(1, 'expected a host name or address')
      .default('127.0.0.1')
      .meta({ description: 'Address to bind; beyond loopback needs allowRemote and a token.' }),
    port: intField(0, 65_535).prefault(8466),
    token: secretField.optional().meta({
      description: 'Access token, e.g. ${SHELFWATCH_CONSOLE_TOKEN}; without one `console` generates one.',
    }),
    allowRemote: boolField().default(false).meta({ description: 'Allow binding beyond loopback.' }),
    publicUrl: urlField(['https', 'http'], 'https://shelfwatch.example.com').optional().meta({
      description:
        'The address people open (behind a TLS proxy): its host is answered too; https makes the cookie Secure.',
    }),
    linkSecret: z
      .string()
      .min(
        MIN_TOKEN_SECRET,
        `expected a secret of at least ${MIN_TOKEN_SECRET} characters (generate one with: openssl rand -base64 32)`,
      )
      .transform((text) => new Secret(text))
      .optional()
      .meta({
        description:
          'Signs the mute and unsubscribe links in messages (secret), e.g. ${SHELFWATCH_LINK_SECRET}; with publicUrl, messages carry links.',
      }),
    trustedProxies: z
      .array(z.string().trim().min(1, 'expected an IP address or CIDR range'))
      .default([])
      .meta({
        description:
          'Addresses (or CIDR ranges) of proxies whose X-Forwarded-For/-Host/-Proto the console believes.',
      }),
  })
  .superRefine((c, ctx) => {
    if (isLoopback(c.host)) return;
    const token = c.token?.reveal();
    if (token !== undefined && token.length < MIN_REMOTE_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['token'],
        message: `a console bound beyond loopback needs a token of at least ${MIN_REMOTE_TOKEN} characters, got ${token.length}`,
        params: { hint: 'generate one with: openssl rand -base64 32' },
      });
    }
    if (!c.allowRemote) {
      ctx.addIssue({
        code: 'custom',
        path: ['host'],
        message: `binding the console to "${c.host}" exposes it beyond this machine`,
        params: { hint: 'set console.allowRemote: true and a console.token, or bind 127.0.0.1' },
      });
    }
    if (c.token === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['token'],
        message: 'a console bound beyond loopback needs a token',
        params: { hint: 'set console.token: ${SHELFWATCH_CONSOLE_TOKEN}' },
      });
    }
  });

export const alertLogSchema = z.strictObject({
  retentionDays: intField(1, 400).prefault(30).meta({ description: 'Days an alert stays in the log.' }),
  maxEntries: intField(100, 10_000_000)
    .prefault(200_000)
    .meta({ description: 'Most alerts kept; the oldest go first.' }),
});

export type ConsoleConfig = z.output<typeof consoleSchema>;

/**
 * Why messages carry no mute or unsubscribe links, or undefined when they do: `validate` says it,
 * since a missing link is otherwise only noticed by someone who wanted to click one.
 */
export function linksNotice(c: ConsoleConfig): { path: string; message: string } | undefined {
  if (c.publicUrl === undefined)
    return {
      path: 'console.publicUrl',
      message:
        'not set: messages will carry no mute or unsubscribe links (set the address people open the console at, and console.linkSecret)',
    };
  if (c.linkSecret === undefined)
    return {
      path: 'console.linkSecret',
      message:
        'not set: messages will carry no mute or unsubscribe links (set it to ${SHELFWATCH_LINK_SECRET}, 32+ random characters)',
    };
  return undefined;
}
