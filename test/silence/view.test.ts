/** Silences as tables and pages show them: the books they match by title first (issue 25 item 5). */
import { describe, expect, it } from 'vitest';
import type { Silence } from '../../src/silence/silence.ts';
import { describeMatchers, silenceViews } from '../../src/silence/view.ts';

const silence: Silence = {
  id: 'abc123abc123',
  matchers: { workspace: 'main', asin: ['B0CJ4XQ2ZK', 'B0UNKNOWN1'], kind: ['bsr_worsened'] },
  startsAt: 0,
  endsAt: 10,
  reason: 'launch',
  createdBy: 'person:ana',
  createdAt: 0,
};

describe('silence views', () => {
  it('name a known book by its title, its ASIN after it; an unknown one by its ASIN', () => {
    const [view] = silenceViews([silence], new Map(), 5, new Map([['B0CJ4XQ2ZK', 'Tide Lines']]));
    expect(view?.bookTitles).toEqual({ B0CJ4XQ2ZK: 'Tide Lines' });
    expect(describeMatchers(silence.matchers, view?.bookTitles)).toBe(
      'workspace=main asin=“Tide Lines” (B0CJ4XQ2ZK),B0UNKNOWN1 kind=bsr_worsened',
    );
  });

  it('read as before without titles', () => {
    const [view] = silenceViews([silence], new Map(), 5);
    expect(view?.bookTitles).toBeUndefined();
    expect(describeMatchers(silence.matchers)).toBe(
      'workspace=main asin=B0CJ4XQ2ZK,B0UNKNOWN1 kind=bsr_worsened',
    );
  });
});
