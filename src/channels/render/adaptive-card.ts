/**
 * The envelope both Teams renderers send: one full-width Adaptive Card 1.4 in a Workflows webhook
 * `message`, and the `TextRun` that carries untrusted text (shown as it is: no markdown, no
 * mentions; bidi controls stripped).
 */
import { stripBidi } from '../../util/bidi.ts';

export const textRun = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'TextRun',
  text: stripBidi(text),
  ...extra,
});

export function adaptiveCardMessage(body: unknown[], actions?: unknown[]) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          msteams: { width: 'Full' },
          body,
          ...(actions === undefined ? {} : { actions }),
        },
      },
    ],
  };
}
