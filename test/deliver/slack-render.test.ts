import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import {
  escapeMrkdwn,
  renderSlackMessage,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  slackLinkUrl,
} from '../../src/channels/render/slack-blocks.ts';
import { sparkline, sparklineFor } from '../../src/channels/render/sparkline.ts';
import { bookUrl, truncate, truncateMapped } from '../../src/channels/render/text.ts';
import { sampleMessage } from '../../src/deliver/sample-alert.ts';
import type { Alert } from '../../src/model/alert.ts';
import { factsOf, type LooseAlert, looseAlert } from '../helpers/alert-facts.ts';

const ASIN = 'B0CJ4XQ2ZK';
const T0 = Date.UTC(2026, 10, 21);
const HOSTILE =
  '<!channel> <!here> <@U123> <script>alert(1)</script> Tom & Jerry <http://evil.example|click me> ' +
  'مرحبا بالعالم 👍🏽 👩‍💻 👨‍👩‍👧‍👦 ';
const LONG_HOSTILE = HOSTILE.repeat(Math.ceil(10_000 / HOSTILE.length));

function alert(kind: Alert['kind'], extra: Partial<LooseAlert> = {}): Alert {
  return looseAlert({
    fingerprint: `fp-${kind}-${extra.title ?? ''}`,
    workspace: 'acme',
    ruleId: kind,
    kind,
    severity: 'warning',
    status: 'firing',
    subject: { asin: ASIN, marketplace: 'US' },
    title: `Something happened (${kind})`,
    facts: {},
    observedAt: T0,
    ...extra,
  });
}

function review(rating: number, extra: Record<string, string | number | boolean | null> = {}): Alert {
  return alert('review_new', {
    subject: { asin: ASIN, campaignId: 'camp-1', reviewId: `r-${rating}` },
    title: `New ${rating}★ Goodreads review of ${ASIN} (campaign camp-1)`,
    facts: {
      campaignId: 'camp-1',
      asin: ASIN,
      reviewId: `r-${rating}`,
      platform: 'goodreads',
      rating,
      reviewer: 'Reader <@U999>',
      reviewTitle: 'Title & <!everyone>',
      body: 'Body text of the review',
      url: 'https://www.goodreads.com/review/show/123?a=1&b=2',
      publishedAt: T0,
      lowStar: rating <= 2,
      ...extra,
    },
  });
}

function message(alerts: Alert[], extra: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return { alerts, totalCount: alerts.length, hideLowStarText: false, messageId: 'm-1', ...extra };
}

function texts(msg: SlackMessage): string[] {
  const out = [msg.text];
  for (const block of msg.blocks) {
    if (block.type === 'context') for (const e of block.elements) out.push(e.text);
    else out.push(block.text.text);
  }
  return out;
}

const sections = (msg: SlackMessage) =>
  msg.blocks.filter((b): b is Extract<SlackBlock, { type: 'section' }> => b.type === 'section');
const contexts = (msg: SlackMessage) =>
  msg.blocks.filter((b): b is Extract<SlackBlock, { type: 'context' }> => b.type === 'context');

/** The limits Slack enforces, and no unescaped control characters outside our own links. */
function expectWithinLimits(msg: SlackMessage): void {
  expect(msg.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  const [head] = msg.blocks;
  expect(head?.type).toBe('header');
  if (head?.type === 'header') expect(head.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.headerChars);
  for (const s of sections(msg)) expect(s.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionChars);
  expect(msg.text.length).toBeLessThanOrEqual(SLACK_LIMITS.textChars);
  const total = msg.blocks.reduce((n, b) => n + (b.type === 'context' ? 0 : b.text.text.length), 0);
  expect(total).toBeLessThanOrEqual(SLACK_LIMITS.totalChars);
  for (const text of texts(msg)) {
    // Every "&" starts one of the three entities; every "<…>" is a link we wrote to an http(s) URL.
    expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
    for (const tag of text.match(/<[^>]*>/g) ?? []) expect(tag).toMatch(/^<https?:\/\/[^|<>\s]+\|[^<>|]+>$/);
    // No lone surrogates: nothing was cut inside an emoji.
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  }
}

describe('sparkline', () => {
  it('draws values low to high, nulls as gaps, a flat series mid-height', () => {
    expect(sparkline([1, 2, 3, 4, 5, 6, 7, 8])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([1, null, 8], { gap: '·' })).toBe('▁·█');
    expect(sparkline([5, 5, 5])).toBe('▄▄▄');
    expect(sparkline([])).toBe('');
  });

  it('inverts ranks, so a rank getting worse (a larger number) is drawn falling', () => {
    const worsening = [10, 20, 40, 80];
    const drawn = sparkline(worsening, { invert: true });
    expect(drawn[0]).toBe('█');
    expect(drawn.at(-1)).toBe('▁');
    expect(sparkline([80, 40, 20, 10], { invert: true })).toBe('▁▅▇█');
  });

  it('draws a worsened BSR falling and royalties as they are', () => {
    const bsr = sparklineFor(alert('bsr_worsened', { series: [1_000, 1_100, 900, 5_000] }));
    expect(bsr?.at(-1)).toBe('▁');
    expect(bsr?.[2]).toBe('█');
    const royalties = sparklineFor(alert('royalty_change', { series: [100, 200, 50] }));
    expect(royalties).toBe('▃█▁');
  });
});

describe('truncate', () => {
  it('keeps short text and cuts long text to the limit, ending in "…"', () => {
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(truncate('hello world', 8).length).toBe(8);
  });

  it('never splits a surrogate pair, a skin tone or a ZWJ sequence', () => {
    const text = 'ab👨‍👩‍👧‍👦cd👍🏽e';
    const segments = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)];
    const boundaries = new Set(segments.map((s) => text.slice(0, s.index)));
    for (let max = 1; max < text.length; max++) {
      const cut = truncate(text, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut.endsWith('…')).toBe(true);
      expect(boundaries).toContain(cut.slice(0, -1));
    }
    expect(truncate(text, text.length)).toBe(text);
  });

  it('measures escaped text and never cuts an entity in half', () => {
    for (let max = 1; max < 40; max++) {
      const cut = truncateMapped('&&&&<<<<>>>>', max, escapeMrkdwn);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut.replace(/&(amp|lt|gt);/g, '').replace('…', '')).toBe('');
    }
  });
});

describe('renderSlackMessage', () => {
  it('escapes hostile review text, truncates it, and keeps RTL text and emoji intact', () => {
    const msg = renderSlackMessage(message([review(5, { body: LONG_HOSTILE, reviewTitle: HOSTILE })]));
    expectWithinLimits(msg);
    const [section] = sections(msg);
    const text = section?.text.text ?? '';
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).toContain('&lt;@U123&gt;');
    expect(text).toContain('&lt;script&gt;');
    expect(text).toContain('Tom &amp; Jerry');
    expect(text).toContain('مرحبا بالعالم');
    expect(text).toContain('👍🏽');
    expect(text).toContain('👨‍👩‍👧‍👦');
    expect(text).toContain('…');
    expect(text.length).toBeGreaterThan(2_500); // a single review gets the room
    expect(text).toContain('<https://www.goodreads.com/review/show/123?a=1&amp;b=2|Read the review>');
    expect(text).toContain(`<https://www.amazon.com/dp/${ASIN}|Book on amazon.com>`);
  });

  it('escapes untrusted text in titles and facts of every kind (book titles, keywords, errors)', () => {
    const alerts = [
      alert('bsr_worsened', {
        title: `Best-seller rank of “${HOSTILE}” worsened`,
        facts: { bookTitle: LONG_HOSTILE, category: '<!here>', before: 10, after: 40 },
        series: [10, 12, 40],
      }),
      alert('keyword_rank_drop', {
        title: `“<@U1>” fell`,
        facts: { keyword: '<@U1> & co', before: 4, after: 19 },
      }),
      alert('source_health', {
        facts: { targetId: 'book/x', failures: 3, lastError: `<!channel> ${LONG_HOSTILE}` },
      }),
    ];
    const msg = renderSlackMessage(message(alerts));
    expectWithinLimits(msg);
    expect(sections(msg)).toHaveLength(3);
    for (const text of texts(msg)) {
      expect(text).not.toContain('<!');
      expect(text).not.toContain('<@');
    }
    expect(sections(msg)[1]?.text.text).toContain('#4 → #19');
  });

  it('links to the marketplace’s Amazon store, and not at all for an unknown one', () => {
    expect(bookUrl(ASIN, 'DE')).toBe(`https://www.amazon.de/dp/${ASIN}`);
    expect(bookUrl(ASIN, 'JP')).toBe(`https://www.amazon.co.jp/dp/${ASIN}`);
    expect(bookUrl(ASIN, 'BR')).toBe(`https://www.amazon.com.br/dp/${ASIN}`);
    expect(bookUrl(ASIN, 'XX')).toBeUndefined();
    const uk = renderSlackMessage(
      message([alert('bsr_removed', { subject: { asin: ASIN, marketplace: 'UK' } })]),
    );
    expect(sections(uk)[0]?.text.text).toContain(
      `<https://www.amazon.co.uk/dp/${ASIN}|Book on amazon.co.uk>`,
    );
  });

  it('drops review links that are not http(s) and encodes the characters that end a link', () => {
    expect(slackLinkUrl('javascript:alert(1)')).toBeUndefined();
    expect(slackLinkUrl('not a url')).toBeUndefined();
    expect(slackLinkUrl('https://evil.example/a|b>c<d?x=1&y=2')).toBe(
      'https://evil.example/a%7Cb%3Ec%3Cd?x=1&amp;y=2',
    );
    const msg = renderSlackMessage(message([review(4, { url: 'javascript:alert(1)' })]));
    expect(sections(msg)[0]?.text.text).not.toContain('Read the review');
  });

  it('hides title, body and reviewer of 1–2 star reviews only, when asked', () => {
    const alerts = [1, 2, 3, 5].map((r) => review(r, { body: `body of the ${r} star review` }));
    const msg = renderSlackMessage(message(alerts, { hideLowStarText: true }));
    expectWithinLimits(msg);
    const [one, two, three, five] = sections(msg).map((s) => s.text.text);
    for (const low of [one, two]) {
      expect(low).toContain('text hidden');
      expect(low).not.toMatch(/body of the/);
      expect(low).not.toContain('Title');
      expect(low).not.toContain('Reader');
      expect(low).toContain('Goodreads');
      expect(low).toContain('Read the review');
    }
    expect(one).toContain('★☆☆☆☆');
    expect(three).toContain('body of the 3 star review');
    expect(five).toContain('body of the 5 star review');
    const shown = renderSlackMessage(message([review(1, { body: 'visible' })]));
    expect(sections(shown)[0]?.text.text).toContain('visible');
  });

  it('hides a removed low-star review too (review_removed carries no lowStar fact)', () => {
    const { lowStar: _, ...facts } = factsOf(review(1, { body: 'gone body' }));
    const removed = looseAlert({ ...review(1), kind: 'review_removed', facts });
    const msg = renderSlackMessage(message([removed], { hideLowStarText: true }));
    expect(sections(msg)[0]?.text.text).not.toContain('gone body');
  });

  it('shows a restored review like a new one, and hides its text when it is low-star', () => {
    const restored = looseAlert({
      ...review(4, { body: 'back again' }),
      kind: 'review_restored',
      status: 'resolved',
    });
    expect(sections(renderSlackMessage(message([restored])))[0]?.text.text).toContain('back again');
    const low = looseAlert({
      ...review(1, { body: 'low and back', lowStar: true }),
      kind: 'review_restored',
    });
    const hidden = renderSlackMessage(message([low], { hideLowStarText: true }));
    expect(sections(hidden)[0]?.text.text).not.toContain('low and back');
  });

  it('fits a storm of 200 long reviews into 50 blocks and says how many more', () => {
    const alerts = Array.from({ length: 200 }, (_, i) =>
      review((i % 5) + 1, { body: LONG_HOSTILE, reviewId: i }),
    );
    for (const totalCount of [200, 250]) {
      const msg = renderSlackMessage(message(alerts, { totalCount }));
      expectWithinLimits(msg);
      const shown = sections(msg).length;
      expect(shown).toBeGreaterThan(5);
      expect(contexts(msg).at(-1)?.elements[0]?.text).toBe(`…and ${totalCount - shown} more`);
      expect(msg.blocks.at(-1)?.type).toBe('context');
      expect(msg.text.startsWith(`${totalCount} alerts: `)).toBe(true);
    }
  });

  it('shows up to 49 short alerts whole, and 48 plus "…and N more" beyond', () => {
    const short = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        alert('keyword_rank_drop', {
          title: `“kw ${i}” fell`,
          facts: { keyword: `kw ${i}`, before: 1, after: 9 },
        }),
      );
    const fits = renderSlackMessage(message(short(49)));
    expect(sections(fits)).toHaveLength(49);
    expect(contexts(fits)).toHaveLength(0);
    const storm = renderSlackMessage(message(short(200)));
    expectWithinLimits(storm);
    expect(sections(storm)).toHaveLength(48);
    expect(storm.blocks).toHaveLength(50);
    expect(contexts(storm)[0]?.elements[0]?.text).toBe('…and 152 more');
    const header = storm.blocks[0];
    expect(header?.type === 'header' && header.text.text).toBe('🔔 200 alerts · Keyword rank drop');
  });

  it('writes a plain, escaped fallback text', () => {
    const one = renderSlackMessage(message([alert('bsr_removed', { title: 'Rank of “A & <B>” removed' })]));
    expect(one.text).toBe('🟠 Rank of “A &amp; &lt;B&gt;” removed');
    const three = renderSlackMessage(message([review(4), review(5), alert('bsr_removed')]));
    expect(three.text.startsWith('3 alerts: ')).toBe(true);
  });
});

describe('messages people read (Slack)', () => {
  const RAW_EPOCH = /\d{1,3}(,\d{3}){4}|\b1\d{12}\b/;

  it('says why a keyword drop fired in words, never the internal trigger names', () => {
    const drop = alert('keyword_rank_drop', {
      facts: {
        keyword: 'cozy mystery',
        before: 4,
        after: 19,
        positionsLost: 15,
        percentWorse: 375,
        trigger: 'positions,top_n',
        topN: 10,
      },
    });
    const text = texts(renderSlackMessage(message([drop]))).join('\n');
    expect(text).toContain('lost 15 positions, left the top 10');
    expect(text).not.toMatch(/positions,top_n|top_n|Trigger/);
  });

  it("shows times in the channel's zone with the zone named, never a raw epoch or UTC for Berlin", () => {
    const paused = alert('source_health', {
      facts: { targetId: 'book/x', pausedUntil: Date.UTC(2026, 10, 21, 14, 0) },
    });
    const text = texts(renderSlackMessage(message([review(5), paused], { timeZone: 'Europe/Berlin' }))).join(
      '\n',
    );
    expect(text).toContain('21 Nov 2026, 01:00 CET'); // the review's publishedAt, T0 = 00:00 UTC
    expect(text).toContain('21 Nov 2026, 15:00 CET');
    expect(text).not.toMatch(RAW_EPOCH);
    expect(text).not.toContain('UTC');
  });

  it('marks the test-alert sample plainly as a test, not as "Polling works again"', () => {
    const msg = renderSlackMessage(sampleMessage('team', T0, 'Europe/Berlin'));
    const text = texts(msg).join('\n');
    expect(msg.blocks[0]).toMatchObject({ type: 'header', text: { text: '✅ Test alert' } });
    expect(text).toContain('Test alert from shelfwatch — no action needed');
    expect(text).not.toMatch(/Polling works again|channel\/team/);
    expect(text).toContain('01:00 CET');
  });
});
