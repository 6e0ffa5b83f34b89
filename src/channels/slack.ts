// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * Slack incoming-webhook channel, on @slack/webhook. The package's HTTP error carries the status
 * and body but not the headers, so it is given a fetch (undici's, over our pool) that keeps the
 * response: a 429's Retry-After reaches the pipeline, which pauses this webhook. The same fetch
 * carries the shutdown signal and our deadline; the package's own retries stay off (its default).
 *
 * Slack allows about one message a second per webhook; sending on through 429s can get the app
 * disabled. The webhook URL is a secret (its path is the credential).
 */
import { createHash } from 'node:crypto';
import { IncomingWebhook, IncomingWebhookHTTPError, IncomingWebhookRequestError } from '@slack/webhook';
import { webhookUrlChannelSchema } from '../config-kit/channel-fields.ts';
import type { Secret } from '../config-kit/secret.ts';
import {
  classifyStatus,
  createWebhookNotifier,
  type HttpAnswer,
  type WebhookNotifierOptions,
} from './http-channel.ts';
import { defineChannel, pacePerWebhook } from './plugin.ts';
import { renderSlackDigest } from './render/digest-slack.ts';
import { renderSlackMessage } from './render/slack-blocks.ts';

const SLACK_HOST = 'hooks.slack.com';
/** Slack allows about one message a second per webhook: 1.1 s keeps send-time jitter under it. */
const SLACK_MIN_INTERVAL_MS = 1_100;
/**
 * 400 (invalid_payload, invalid_blocks, no_text…) says OUR payload is wrong. 403/404/410
 * (action_prohibited, channel_not_found or a revoked webhook, channel_is_archived) say the webhook
 * itself is gone or forbidden: nothing will get through until someone fixes the config.
 */
const REFUSING = new Set([403, 404, 410]);

const schema = webhookUrlChannelSchema({
  type: 'slack',
  description: 'Incoming-webhook URL (secret), e.g. ${SLACK_WEBHOOK_URL}.',
  example: 'https://hooks.slack.com/services/T000/B000/XXXX',
  shortExample: 'https://hooks.slack.com/services/…',
  usualHost: SLACK_HOST,
  hostAllowed: (host) => host === SLACK_HOST,
});

export type SlackNotifierOptions = WebhookNotifierOptions;

/** A short hash of the webhook URL: enough to tell two webhooks apart in logs, useless to post with. */
export function webhookHash(webhookUrl: Secret): string {
  return createHash('sha256').update(webhookUrl.reveal()).digest('hex').slice(0, 8);
}

export function createSlackNotifier(options: SlackNotifierOptions) {
  return createWebhookNotifier('slack', options, {
    render: (message) => ({
      url: options.webhookUrl.reveal(),
      // Review links come from the public: no previews of pages we did not choose.
      json: { ...renderSlackMessage(message), unfurl_links: false, unfurl_media: false },
    }),
    renderDigest: (digest) => ({
      url: options.webhookUrl.reveal(),
      json: { ...renderSlackDigest(digest), unfurl_links: false, unfurl_media: false },
    }),
    classify: (answer) => classifyStatus(answer, 'Slack', REFUSING),
    async post(request, fetch): Promise<HttpAnswer> {
      let response: Response | undefined;
      const hook = new IncomingWebhook(request.url, {
        fetch: async (url, init) => {
          response = await fetch(url, init);
          return response;
        },
      });
      try {
        const result = await hook.send(request.json as Parameters<IncomingWebhook['send']>[0]);
        return {
          status: response?.status ?? 200,
          headers: response?.headers ?? new Headers(),
          text: result.text,
        };
      } catch (error) {
        if (error instanceof IncomingWebhookHTTPError) {
          return { status: error.statusCode, headers: response?.headers ?? new Headers(), text: error.body };
        }
        // No answer: the network error itself decides (timeout, refused connection, abort).
        throw error instanceof IncomingWebhookRequestError ? error.original : error;
      }
    },
  });
}

export const slackChannel = defineChannel({
  type: 'slack',
  schema,
  pace: pacePerWebhook('slack', SLACK_MIN_INTERVAL_MS),
  create: (config, deps) =>
    createSlackNotifier({
      id: config.id,
      webhookUrl: config.webhookUrl,
      dispatcher: deps.dispatcher,
    }),
});
