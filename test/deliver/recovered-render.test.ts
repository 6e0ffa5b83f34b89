/** Recovered rank alerts, as the rules make them, say how low the rank went and for how long. */
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import { renderAlertEmail } from '../../src/channels/render/email.ts';
import { renderPlainAlert } from '../../src/channels/render/plain.ts';
import { renderSlackMessage } from '../../src/channels/render/slack-blocks.ts';
import { factRows } from '../../src/channels/render/text.ts';
import type { Alert } from '../../src/model/alert.ts';
import { book, HOUR, keywords, rule, run, T0 } from '../rules/helpers.ts';

const MINUTE = 60_000;

/** #4, then down to #31 over the afternoon, back to #4 at 14:20 UTC: 5 h 20 min after it fired. */
function keywordRecovered(): Alert {
  const at = [0, 9 * HOUR, 11 * HOUR, 14 * HOUR + 20 * MINUTE];
  const ranks = [4, 12, 31, 4];
  const polls = at.map((t, i) => keywords(T0 + t, { 'cozy mystery': ranks[i] ?? null }));
  const r = rule({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, sendResolved: true });
  const recovered = run([r], polls, undefined, { stored: true }).perPoll[3]?.[0];
  if (recovered === undefined) throw new Error('no recovered alert');
  return recovered;
}

function bsrRecovered(): Alert {
  const flat = Array<number>(24).fill(1000);
  const ranks = [1000, 2500, 4100, 1400];
  const seq = ranks.map((rank, h) => book(T0 + h * HOUR, rank, flat));
  const r = rule({ id: 'bsr', kind: 'bsr_worsened', sendResolved: true });
  const recovered = run([r], seq).perPoll[3]?.[0];
  if (recovered === undefined) throw new Error('no recovered alert');
  return recovered;
}

const message = (alert: Alert, timeZone: string): OutgoingMessage => ({
  alerts: [alert],
  totalCount: 1,
  hideLowStarText: false,
  messageId: 'm-1',
  timeZone,
});

const plainMarkup = { escape: (g: string) => g, bold: (t: string) => t, quote: (t: string) => `> ${t}` };

describe('recovered messages name the low point and how long it lasted', () => {
  it('keyword rank: in the title, and in local time in the details of every renderer', () => {
    const alert = keywordRecovered();
    expect(alert.title).toBe(
      '“cozy mystery” is back at #4 (B0CJ4XQ2ZK, US) — was down to #31 for 5 h 20 min',
    );
    const rows = factRows(alert, 'Europe/Berlin');
    expect(rows).toContainEqual({ label: 'Rank', value: '#4 (before the drop: #4)' });
    expect(rows).toContainEqual({ label: 'Low point', value: '#31' });
    // Fired at 09:00 UTC, which is 10:00 in Berlin in November.
    expect(rows).toContainEqual({ label: 'Down', value: 'from 21 Nov 2026, 10:00 CET for 5 h 20 min' });

    const email = renderAlertEmail(message(alert, 'Europe/Berlin'), {
      from: 'a@example.test',
      to: ['b@example.test'],
    });
    expect(email.text).toMatch(/Low point\s*:?\s+#31/);
    expect(email.text).toMatch(/Rank\s*:?\s+#4 \(before the drop: #4\)/);
    expect(email.text).toContain('from 21 Nov 2026, 10:00 CET for 5 h 20 min');
    const slack = JSON.stringify(renderSlackMessage(message(alert, 'America/New_York')));
    expect(slack).toContain('from 21 Nov 2026, 04:00 GMT-5 for 5 h 20 min');
    const plain = renderPlainAlert(alert, plainMarkup, {
      hideLowStar: false,
      titleChars: 500,
      detailChars: 2000,
      bodyChars: 500,
      timeZone: 'Asia/Tokyo',
    });
    expect(plain.details).toContain('Low point: #31');
    expect(plain.details).toContain('from 21 Nov 2026, 18:00 GMT+9 for 5 h 20 min');
  });

  it('best-seller rank: the worst hourly rank while it was down', () => {
    const alert = bsrRecovered();
    expect(alert.kind).toBe('bsr_recovered');
    expect(alert.title).toMatch(/— was down to #4,100 for 2 h$/);
    expect(factRows(alert, 'UTC')).toContainEqual({ label: 'Low point', value: '#4,100' });
  });
});
