/**
 * The pages of a mute link (`/mute/<token>`), shown without signing in: the confirmation a GET
 * shows (a form whose POST mutes), what a POST did, and why a link does nothing (forged, expired,
 * used, or a critical alert's). Every text from the link is escaped by the page builder.
 */
import type { MuteLinkState, MuteOutcome } from '../../silence/mute-apply.ts';
import { html, timeText } from '../html.ts';
import { barePage } from '../layout.ts';

const REFUSED: Record<'forged' | 'malformed' | 'expired' | 'used', { title: string; text: string }> = {
  forged: {
    title: 'Link not valid',
    text: 'This link was not signed by this shelfwatch (it was changed, or the server secret changed since). Nothing was muted.',
  },
  malformed: { title: 'Link not valid', text: 'This is not a complete mute link. Nothing was muted.' },
  expired: {
    title: 'Link expired',
    text: 'This mute link has expired. Nothing was muted; use the link in a newer message, or the console.',
  },
  used: {
    title: 'Link already used',
    text: 'This link was used already; it works once. Nothing else was changed.',
  },
};

const CRITICAL =
  'Critical alerts (a source failing, a revoked or refused API key) cannot be muted from a message: they say shelfwatch itself has stopped watching, and everyone the config sends them to must know. Fix the cause, or ask an administrator to change the route.';

function alertLine(title: string | undefined) {
  return title === undefined ? '' : html`<p>Alert: <strong><bdi>${title}</bdi></strong></p>`;
}

/** Status and page of a link that does nothing now (never a redirect: RFC 8058 clients follow none). */
export function mutePage(
  outcome: MuteLinkState | MuteOutcome,
  action: string,
): { status: number; body: string } {
  switch (outcome.state) {
    case 'ready':
      return {
        status: 200,
        body: barePage(
          'Mute these alerts?',
          html`${alertLine(outcome.claims.t)}<p>${outcome.description}</p>
<form method="post" action="${action}"><input type="hidden" name="confirm" value="yes"><button type="submit">Mute</button></form>
<p class="hint">Nothing changes until you press the button. A silence can be ended early under Silences in the console.</p>`,
        ),
      };
    case 'muted':
      return {
        status: 200,
        body: barePage(
          'Muted',
          html`<p class="notice" role="status">${outcome.description}</p><p>Silence <code>${outcome.silence.id}</code> ends ${timeText(outcome.silence.endsAt)}. It is listed, and can be ended early, under Silences in the console.</p>`,
        ),
      };
    case 'critical':
      return {
        status: 409,
        body: barePage('This alert cannot be muted', html`${alertLine(outcome.claims.t)}<p>${CRITICAL}</p>`),
      };
    default: {
      const refused = REFUSED[outcome.state];
      const status = outcome.state === 'used' ? 409 : outcome.state === 'expired' ? 410 : 400;
      return {
        status,
        body: barePage(refused.title, html`<p class="error" role="alert">${refused.text}</p>`),
      };
    }
  }
}
