/** comp_overtook and sentiment_shift alerts, as the rules make them, rendered by every channel. */
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import { renderAlertEmail } from '../../src/channels/render/email.ts';
import { renderSlackMessage } from '../../src/channels/render/slack-blocks.ts';
import { factRows, KIND_LABEL } from '../../src/channels/render/text.ts';
import type { Alert } from '../../src/model/alert.ts';
import { book, HOUR, rule, run, T0 } from '../rules/helpers.ts';

const HOSTILE = '<!channel> <script>x</script> & Co';

function ruleAlerts(): Alert[] {
  const comps = (bsr: number, rating: number) =>
    book(T0 + (bsr === 1200 ? 0 : HOUR), 1000, [], {
      compTitles: [{ asin: 'B0COMP0001', title: HOSTILE, bsr }],
      averageRating: rating,
      sentiment: { positive: 0.8, neutral: 0.14, negative: 0.06 },
    });
  const { alerts } = run(
    [rule({ id: 'comps', kind: 'comp_overtook' }), rule({ id: 'mood', kind: 'sentiment_shift' })],
    [comps(1200, 4.4), comps(800, 3.9)],
  );
  return alerts;
}

function message(alerts: Alert[]): OutgoingMessage {
  return { alerts, totalCount: alerts.length, hideLowStarText: false, messageId: 'm-1' };
}

describe('comp and sentiment alerts render in every channel', () => {
  const alerts = ruleAlerts();

  it('come out of the rules', () => {
    expect(alerts.map((a) => a.kind)).toEqual(['comp_overtook', 'sentiment_shift']);
  });

  it('text: a label and fact rows for each kind', () => {
    const [comp, mood] = alerts;
    expect(KIND_LABEL.comp_overtook).toBe('Comp title moved ahead');
    expect(factRows(comp!)).toContainEqual({ label: 'Rank', value: '#800 (comp) vs #1,000 (book)' });
    expect(factRows(comp!)).toContainEqual({ label: 'Comp title', value: HOSTILE });
    expect(factRows(mood!)).toContainEqual({ label: 'Average rating', value: '4.40 → 3.90' });
  });

  it('Slack: escaped comp title, both alerts listed', () => {
    const msg = renderSlackMessage(message(alerts));
    const all = JSON.stringify(msg);
    expect(all).not.toContain('<!channel>');
    expect(all).toContain('&lt;!channel&gt;');
    expect(all).toContain('#800 (comp) vs #1,000 (book)');
    expect(all).toContain('4.40 → 3.90');
  });

  it('email: escaped HTML and the kinds’ rows', () => {
    const email = renderAlertEmail(message(alerts), { from: 'a@example.test', to: ['b@example.test'] });
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;');
    expect(email.text).toContain('#800 (comp) vs #1,000 (book)');
    expect(email.text).toContain('Baseline → now');
    expect(email.subject).toBe('2 alerts: 1 comp title ahead, 1 sentiment shift (workspace ws)');
  });
});
