import { describe, expect, it } from 'vitest';
import { MARKETPLACES } from '../../src/api/schemas.ts';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import {
  amazonProductUrl,
  MAX_LISTED_ALERTS,
  messageToken,
  renderAlertEmail,
  truncateText,
} from '../../src/channels/render/email.ts';
import { sampleMessage } from '../../src/deliver/sample-alert.ts';
import type { Alert, AlertKind } from '../../src/model/alert.ts';
import { escapeHtml } from '../../src/util/html.ts';
import { type LooseAlert, looseAlert } from '../helpers/alert-facts.ts';

const ASIN = 'B0CJ4XQ2ZK';
const OPTS = { from: 'alerts@example.com', to: ['author@example.com'] };
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function alert(over: Partial<LooseAlert> & Pick<Alert, 'kind'>): Alert {
  return looseAlert({
    fingerprint: 'f'.repeat(32),
    workspace: 'acme',
    ruleId: 'rule-1',
    severity: 'warning',
    status: 'firing',
    subject: {},
    title: 'Something happened',
    facts: {},
    observedAt: Date.UTC(2026, 10, 21, 14, 0),
    ...over,
  });
}

function keywordDrop(marketplace = 'UK'): Alert {
  return alert({
    kind: 'keyword_rank_drop',
    subject: { asin: ASIN, marketplace, keyword: 'cozy mystery' },
    title: `“cozy mystery” fell from #4 to #19 (${ASIN}, ${marketplace})`,
    facts: { keyword: 'cozy mystery', asin: ASIN, marketplace, before: 4, after: 19, positionsLost: 15 },
  });
}

function review(facts: Record<string, unknown> = {}): Alert {
  return alert({
    kind: 'review_new',
    severity: 'info',
    subject: { asin: ASIN, campaignId: 'camp-1', reviewId: 'r-1' },
    title: `New 4★ Goodreads review of ${ASIN} (campaign camp-1)`,
    facts: {
      campaignId: 'camp-1',
      asin: ASIN,
      reviewId: 'r-1',
      platform: 'goodreads',
      rating: 4,
      reviewer: 'Ann Reader',
      reviewTitle: 'Loved it',
      body: 'A cosy, clever mystery.',
      url: 'https://www.goodreads.com/review/show/1',
      publishedAt: '2026-11-21T10:00:00Z',
      lowStar: false,
      ...facts,
    },
  });
}

function message(alerts: Alert[], over: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return { alerts, totalCount: alerts.length, hideLowStarText: false, messageId: 'msg-1', ...over };
}

describe('subject', () => {
  it('is the title of a single alert, trimmed to 120 characters', () => {
    expect(renderAlertEmail(message([keywordDrop()]), OPTS).subject).toBe(
      `“cozy mystery” fell from #4 to #19 (${ASIN}, UK)`,
    );
    const long = alert({
      kind: 'bsr_worsened',
      title: `Best-seller rank of “${'Long title '.repeat(30)}” worsened`,
    });
    const subject = renderAlertEmail(message([long]), OPTS).subject;
    expect(subject).toHaveLength(120);
    expect(subject.endsWith('…')).toBe(true);
  });

  it('counts the kinds of several alerts, most frequent first, and names the workspace', () => {
    const alerts = [review(), keywordDrop(), keywordDrop(), review(), keywordDrop()];
    expect(renderAlertEmail(message(alerts), OPTS).subject).toBe(
      '5 alerts: 3 keyword rank drops, 2 new reviews (workspace acme)',
    );
    expect(renderAlertEmail(message([keywordDrop(), review()]), OPTS).subject).toBe(
      '2 alerts: 1 keyword rank drop, 1 new review (workspace acme)',
    );
  });

  it('counts the alerts that were cut from a storm', () => {
    const alerts = [keywordDrop(), keywordDrop(), review()];
    const email = renderAlertEmail(message(alerts, { totalCount: 10 }), OPTS);
    expect(email.subject).toBe('10 alerts: 2 keyword rank drops, 1 new review, 7 more (workspace acme)');
    expect(email.text).toContain('…and 7 more alerts.');
    expect(email.html).toContain('…and 7 more alerts.');
  });

  it('keeps line breaks out of the subject', () => {
    const subject = renderAlertEmail(
      message([alert({ kind: 'source_health', title: 'a\r\nBcc: x@y.z' })]),
      OPTS,
    ).subject;
    expect(subject).toBe('a Bcc: x@y.z');
  });
});

describe('body', () => {
  it('lists every alert in text and html, up to the cap, and says how many more there are', () => {
    const alerts = Array.from({ length: MAX_LISTED_ALERTS + 5 }, (_, i) =>
      alert({ kind: 'source_health', title: `Target t-${i} failing` }),
    );
    const email = renderAlertEmail(message(alerts, { totalCount: MAX_LISTED_ALERTS + 9 }), OPTS);
    expect(email.text).toContain(`t-${MAX_LISTED_ALERTS - 1} failing`);
    expect(email.text).not.toContain(`t-${MAX_LISTED_ALERTS} failing`);
    expect(email.html.match(/border-left:4px solid/g)).toHaveLength(MAX_LISTED_ALERTS);
    expect(email.text).toContain('…and 9 more alerts.');
    expect(email.html).toContain('…and 9 more alerts.');
  });

  it('renders every alert kind with its title and observation time', () => {
    const kinds: AlertKind[] = [
      'keyword_rank_drop',
      'keyword_rank_recovered',
      'bsr_worsened',
      'bsr_recovered',
      'bsr_removed',
      'bsr_restored',
      'review_new',
      'review_removed',
      'review_restored',
      'review_count_down',
      'royalty_change',
      'sales_revision',
      'source_health',
      'source_recovered',
    ];
    for (const kind of kinds) {
      const email = renderAlertEmail(message([alert({ kind, title: `title of ${kind}` })]), OPTS);
      expect(email.text).toContain(`title of ${kind}`);
      expect(email.text).toContain('21 Nov 2026, 14:00 UTC');
      expect(email.html).toContain(`title of ${kind}`);
    }
  });

  it('formats money facts in major units with their currency', () => {
    const royalty = alert({
      kind: 'royalty_change',
      facts: {
        date: '2026-11-20',
        currency: 'USD',
        royalties: 8712,
        dayBefore: 20050,
        trailingAverage: null,
        units: 31,
      },
    });
    const text = renderAlertEmail(message([royalty]), OPTS).text;
    expect(text).toContain('Royalties: 87.12 USD');
    expect(text).toContain('Day before: 200.50 USD');
    expect(text).toContain('Trailing average: —');
  });

  it('shows a workspace pause by its reason and end, not as an empty target streak', () => {
    const pause = alert({
      kind: 'source_health',
      subject: { scope: 'workspace' },
      facts: {
        scope: 'workspace',
        pauseReason: 'unauthorized',
        since: Date.UTC(2026, 10, 21, 13, 0),
        pausedUntil: Date.UTC(2026, 10, 21, 13, 15),
      },
    });
    const text = renderAlertEmail(message([pause]), OPTS).text;
    expect(text).toContain('Paused because: unauthorized');
    expect(text).toContain('Paused until: 21 Nov 2026, 13:15 UTC');
    expect(text).not.toContain('Target:');
    expect(text).not.toContain('Failures in a row:');
  });

  it('links to the Amazon product page of the alert’s marketplace', () => {
    expect(renderAlertEmail(message([keywordDrop('UK')]), OPTS).html).toContain(
      `href="https://www.amazon.co.uk/dp/${ASIN}"`,
    );
    expect(renderAlertEmail(message([keywordDrop('JP')]), OPTS).text).toContain(
      `https://www.amazon.co.jp/dp/${ASIN}`,
    );
    const domains = MARKETPLACES.map((m) => new URL(amazonProductUrl(ASIN, m) ?? 'x:').hostname);
    expect(domains).toEqual([
      'www.amazon.com',
      'www.amazon.co.uk',
      'www.amazon.de',
      'www.amazon.fr',
      'www.amazon.es',
      'www.amazon.it',
      'www.amazon.nl',
      'www.amazon.co.jp',
      'www.amazon.in',
      'www.amazon.ca',
      'www.amazon.com.br',
      'www.amazon.com.mx',
      'www.amazon.com.au',
    ]);
    expect(amazonProductUrl('not an asin', 'US')).toBeUndefined();
    expect(amazonProductUrl(ASIN, 'XX')).toBeUndefined();
  });

  it('links the review URL only when it is http or https, and shows anything else as text', () => {
    const good = renderAlertEmail(message([review()]), OPTS).html;
    expect(good).toContain('href="https://www.goodreads.com/review/show/1"');
    for (const url of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'not a url']) {
      const email = renderAlertEmail(message([review({ url })]), OPTS);
      expect(email.html).not.toContain(`href="${escapeHtml(url)}"`);
      expect(email.html).not.toMatch(/href="(javascript|data):/);
      expect(email.html).toContain(escapeHtml(url));
      expect(email.text).toContain(url);
    }
  });

  it('loads nothing from elsewhere: inline styles, no images, scripts or style sheets', () => {
    const html = renderAlertEmail(message([review(), keywordDrop()]), OPTS).html;
    expect(html).not.toMatch(/<(img|script|link|iframe|style)\b|\bsrc=|url\(/i);
    for (const [, href] of html.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^https:\/\//);
  });
});

describe('untrusted text', () => {
  const hostileTitle = `<script>alert("x")</script> <!channel> "onerror=alert(1)`;
  const rtl = 'مراجعة رائعة \u202Etxt.exe';
  const emoji = '👍🏽📚👩‍👩‍👧';
  const hostileBody = `${rtl} ${emoji} <img src=x onerror='alert(1)'> & more ${'x'.repeat(10_000)}`;
  const hostile = review({
    reviewTitle: hostileTitle,
    body: hostileBody,
    reviewer: '<b>Mallory</b> & "co"',
    campaignId: '<i>camp</i>',
  });

  it('escapes every piece in the html', () => {
    const html = renderAlertEmail(message([hostile]), OPTS).html;
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<!channel>');
    expect(html).not.toContain('"onerror=');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>Mallory');
    expect(html).not.toContain('<i>camp');
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &lt;!channel&gt; &quot;onerror=alert(1)',
    );
    expect(html).toContain('&lt;img src=x onerror=&#39;alert(1)&#39;&gt; &amp; more');
    expect(html).toContain('&lt;b&gt;Mallory&lt;/b&gt; &amp; &quot;co&quot;');
    expect(html).toContain(`<bdi>${rtl} ${emoji}`);
  });

  it('keeps the text part verbatim but truncated, without splitting a surrogate pair', () => {
    const text = renderAlertEmail(message([hostile]), OPTS).text;
    expect(text).toContain(hostileTitle);
    expect(text).toContain(`${rtl} ${emoji} <img src=x onerror='alert(1)'> & more xxx`);
    expect(text).toContain('Reviewer: <b>Mallory</b> & "co"');
    expect(text).not.toContain('x'.repeat(2_000));
    expect(text).toContain(`${'x'.repeat(1_900)}…`);
    expect(text.length).toBeLessThan(4_000);
    const emojis = review({ body: `${'a'.repeat(1_998)}${'😀'.repeat(10)}` });
    const out = renderAlertEmail(message([emojis]), OPTS);
    expect(out.text).toContain(`${'a'.repeat(1_998)}…`);
    expect(out.text).not.toMatch(LONE_SURROGATE);
    expect(out.html).not.toMatch(LONE_SURROGATE);
  });

  it('truncateText counts the ellipsis and never leaves half a surrogate pair', () => {
    expect(truncateText('short', 10)).toBe('short');
    expect(truncateText('abcdefghij', 5)).toBe('abcd…');
    const cut = truncateText('ab😀😀', 4);
    expect(cut).toBe('ab…');
    expect(cut).not.toMatch(LONE_SURROGATE);
  });

  it('escapeHtml escapes the five special characters', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
    expect(escapeHtml('plain ✓')).toBe('plain ✓');
  });

  it('hides the title and body of low-star reviews when asked, still showing the rating', () => {
    const low = review({ rating: 1, lowStar: true, reviewTitle: 'Awful book', body: 'Hated every page' });
    const hidden = renderAlertEmail(message([low], { hideLowStarText: true }), OPTS);
    for (const part of [hidden.text, hidden.html]) {
      expect(part).not.toContain('Awful book');
      expect(part).not.toContain('Hated every page');
      expect(part).toContain('Text hidden: low-star review');
      expect(part).toContain('(1/5)');
    }
    const shown = renderAlertEmail(message([low]), OPTS);
    expect(shown.text).toContain('Hated every page');
    const notLow = renderAlertEmail(message([review()], { hideLowStarText: true }), OPTS);
    expect(notLow.text).toContain('A cosy, clever mystery.');
  });
});

describe('headers', () => {
  it('carry a stable Message-ID built from the message id, and mark the mail automatic', () => {
    const email = renderAlertEmail(message([keywordDrop()], { messageId: 'abc123' }), OPTS);
    expect(email.headers).toEqual({
      'Message-ID': '<abc123@shelfwatch>',
      'X-Shelfwatch-Message-Id': 'abc123',
      'X-Shelfwatch-Workspace': 'acme',
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
    });
    expect(renderAlertEmail(message([keywordDrop()], { messageId: 'abc123' }), OPTS)).toEqual(email);
  });

  it('turn any message id into a safe, distinct token', () => {
    const a = messageToken('grp:acme/window 2026-11-21T14:00');
    const b = messageToken('grp:acme/window 2026-11-21T14:05');
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(messageToken('grp:acme/window 2026-11-21T14:00')).toBe(a);
    const email = renderAlertEmail(message([keywordDrop()], { messageId: 'grp:acme/window <x>' }), OPTS);
    expect(email.headers['Message-ID']).toMatch(/^<[A-Za-z0-9_-]+@shelfwatch>$/);
  });
});

describe('messages people read (email)', () => {
  const RAW_EPOCH = /\d{1,3}(,\d{3}){4}|\b1\d{12}\b/;
  const msg = (alerts: Alert[], timeZone?: string): OutgoingMessage => ({
    alerts,
    totalCount: alerts.length,
    hideLowStarText: false,
    messageId: 'm-1',
    ...(timeZone === undefined ? {} : { timeZone }),
  });

  it("shows every time in the channel's zone with the zone named, never a raw epoch number", () => {
    const published = Date.UTC(2026, 10, 21, 10, 0);
    const email = renderAlertEmail(msg([review({ publishedAt: published })], 'Europe/Berlin'), OPTS);
    for (const part of [email.text, email.html]) {
      expect(part).toContain('Published: 21 Nov 2026, 11:00 CET'.replace('Published: ', ''));
      expect(part).toContain('21 Nov 2026, 15:00 CET'); // observedAt 14:00 UTC
      expect(part).not.toMatch(RAW_EPOCH);
      expect(part).not.toContain('UTC');
    }
  });

  it('says why a keyword drop fired in words, not "positions,top_n"', () => {
    const drop = keywordDrop();
    drop.facts = { ...drop.facts, trigger: 'positions,top_n', topN: 10, percentWorse: 375 };
    const email = renderAlertEmail(msg([drop]), OPTS);
    expect(email.text).toContain('Why: lost 15 positions, left the top 10');
    expect(email.text + email.html).not.toContain('top_n');
  });

  it('marks provisional figures in words, not "Provisional: yes"', () => {
    const change = alert({
      kind: 'royalty_change',
      facts: { provisional: true, royalties: 1234, currency: 'USD' },
    });
    const email = renderAlertEmail(msg([change]), OPTS);
    expect(email.text).toContain('Figures: provisional: may still be revised for 14 days');
    expect(email.text).not.toContain('Provisional: yes');
  });

  it('sends test-alert as a plainly marked test with no borrowed polling rows', () => {
    const email = renderAlertEmail(
      sampleMessage('mail', Date.UTC(2026, 10, 21, 14, 0), 'Europe/Berlin'),
      OPTS,
    );
    expect(email.subject).toBe('Test alert from shelfwatch — no action needed (channel mail works)');
    expect(email.text).toContain('[TEST]');
    expect(email.text).toContain('Channel: mail');
    expect(email.text + email.html).not.toMatch(/Failed polls|Down since|channel\/mail|RESOLVED/i);
  });
});
