// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * Microsoft Teams through a Workflows (Power Automate) webhook: "Post to a channel when a webhook
 * request is received" takes an Adaptive Card. Untrusted text goes only into `TextRun`s of a
 * `RichTextBlock`, which Teams shows as it is (no markdown, no HTML, no `<at>` mentions); the
 * markdown-capable `TextBlock`s hold only our own text. So nothing needs escaping and nothing can
 * turn into a link or a mention.
 *
 * Limits (learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook):
 * a message under 28 KB, and more than 4 requests a second are throttled (429).
 */
import { webhookUrlChannelSchema } from '../config-kit/channel-fields.ts';
import { classifyStatus, createWebhookNotifier, type WebhookNotifierOptions } from './http-channel.ts';
import type { OutgoingMessage } from './notifier.ts';
import { defineChannel, pacePerWebhook } from './plugin.ts';
import { adaptiveCardMessage, textRun } from './render/adaptive-card.ts';
import { renderTeamsDigest } from './render/digest-teams.ts';
import { fitPlainAlerts, type Markup, messageHeading } from './render/plain.ts';

/** 28 KB is Teams' limit on the whole request; the card is kept under 24 KB. */
export const TEAMS_LIMITS = { payloadBytes: 28 * 1024, cardBytes: 24 * 1024, alerts: 30 } as const;
/** At most 4 requests a second: one every 300 ms stays under it. */
const MIN_INTERVAL_MS = 300;
/** 401/403: the flow's signature or its owner's rights are gone; 404: the flow was deleted. */
const REFUSING = new Set([401, 403, 404, 410]);

const isWorkflowsHost = (host: string) =>
  host.endsWith('.logic.azure.com') || host.endsWith('.powerplatform.com');

const schema = webhookUrlChannelSchema({
  type: 'teams',
  description:
    'Workflows webhook URL (secret: its sig parameter is the credential), e.g. ${TEAMS_WEBHOOK_URL}.',
  example: 'https://prod-00.westus.logic.azure.com/workflows/…',
  shortExample: 'https://prod-00.westus.logic.azure.com/workflows/…',
  usualHost: '*.logic.azure.com or *.powerplatform.com',
  hostAllowed: isWorkflowsHost,
});

/** TextRuns show text as it is: nothing to escape, only marks and line breaks to keep. */
const asIs: Markup = { escape: (g) => g, bold: (text) => text, quote: (line) => `│ ${line}` };

export function renderTeamsCard(message: OutgoingMessage) {
  const { shown, moreLine } = fitPlainAlerts(
    message,
    asIs,
    {
      maxAlerts: TEAMS_LIMITS.alerts,
      totalChars: TEAMS_LIMITS.cardBytes - 1_024,
      titleChars: 300,
      detailChars: [3_000, 800],
      bodyChars: [2_000, 400],
    },
    (text) => {
      return {
        type: 'Container',
        separator: true,
        items: [
          { type: 'RichTextBlock', inlines: [textRun(`${text.mark} ${text.title}`, { weight: 'Bolder' })] },
          ...(text.details === '' ? [] : [{ type: 'RichTextBlock', inlines: [textRun(text.details)] }]),
        ],
        ...(text.url === undefined ? {} : { selectAction: { type: 'Action.OpenUrl', url: text.url } }),
      };
    },
    (container) => Buffer.byteLength(JSON.stringify(container)),
  );
  const ours = (text: string) => ({ type: 'TextBlock', text, wrap: true });
  const body = [
    { ...ours(messageHeading(message)), size: 'Medium', weight: 'Bolder' },
    ...shown,
    ...(moreLine === undefined ? [] : [{ ...ours(moreLine), isSubtle: true }]),
  ];
  return adaptiveCardMessage(body);
}

export function createTeamsNotifier(options: WebhookNotifierOptions) {
  return createWebhookNotifier('teams', options, {
    render: (message) => ({ url: options.webhookUrl.reveal(), json: renderTeamsCard(message) }),
    renderDigest: (digest) => ({ url: options.webhookUrl.reveal(), json: renderTeamsDigest(digest) }),
    classify: (answer) => classifyStatus(answer, 'Teams', REFUSING),
  });
}

export const teamsChannel = defineChannel({
  type: 'teams',
  schema,
  pace: pacePerWebhook('teams', MIN_INTERVAL_MS),
  create: (config, deps) =>
    createTeamsNotifier({ id: config.id, webhookUrl: config.webhookUrl, dispatcher: deps.dispatcher }),
});
