/** Links to the book's store page and to the review, in the small-markup channels. */
import { describe, expect, it } from 'vitest';
import { discordMarkup } from '../../src/channels/discord.ts';
import { renderPlainAlert } from '../../src/channels/render/plain.ts';
import { telegramMarkup } from '../../src/channels/telegram.ts';
import type { Alert } from '../../src/model/alert.ts';

/** `marketplace` null: a campaign's review, whose alert names no marketplace. */
const review = (url: string | null, marketplace: string | null = 'DE'): Alert => ({
  fingerprint: 'fp-review',
  workspace: 'ws',
  ruleId: 'reviews',
  kind: 'review_new',
  severity: 'info',
  status: 'firing',
  subject: { asin: 'B0CJ4XQ2ZK', reviewId: 'r1', ...(marketplace === null ? {} : { marketplace }) },
  title: 'New 5★ review of “The Teapot Murders”',
  facts: { rating: 5, platform: 'amazon', reviewer: 'Ada', body: 'Loved it', url },
  observedAt: Date.UTC(2026, 10, 21, 9),
});

const options = { hideLowStar: false, titleChars: 256, detailChars: 4000, bodyChars: 1000 };

describe('store and review links', () => {
  it("opens the review, and names the book's store page on its marketplace as a line of its own", () => {
    const discord = renderPlainAlert(review('https://www.amazon.de/review/R1'), discordMarkup, options);
    expect(discord.url).toBe('https://www.amazon.de/review/R1');
    expect(discord.details).toContain('[Book on amazon.de](https://www.amazon.de/dp/B0CJ4XQ2ZK)');
    const telegram = renderPlainAlert(
      review('https://www.amazon.co.jp/review/R1', 'JP'),
      telegramMarkup,
      options,
    );
    expect(telegram.details).toContain(
      '<a href="https://www.amazon.co.jp/dp/B0CJ4XQ2ZK">Book on amazon.co.jp</a>',
    );
  });

  it('a review URL that is no http(s) URL is never a link: the store page takes its place', () => {
    const hostile = renderPlainAlert(review('javascript:alert(1)'), discordMarkup, options);
    expect(hostile.url).toBe('https://www.amazon.de/dp/B0CJ4XQ2ZK');
    expect(`${hostile.details}${hostile.url}`).not.toContain('javascript:');
    const campaign = review('https://www.goodreads.com/review/show/1', null);
    expect(renderPlainAlert(campaign, discordMarkup, options).details).not.toContain('Book on');
    const none = renderPlainAlert(review(null, 'MX'), discordMarkup, options);
    expect(none.url).toBe('https://www.amazon.com.mx/dp/B0CJ4XQ2ZK');
    expect(none.details).not.toContain('Book on');
  });
});
