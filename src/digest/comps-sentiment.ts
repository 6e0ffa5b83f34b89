/**
 * Two digest sections from the book snapshots: "your book vs its comps" (each book's best-seller
 * rank against its comp titles' now) and the review sentiment with its trend since the last
 * digest. Pure figures and plain-text lines; the templates lay them out (and the HTML one escapes).
 */
import type { BookObservation } from '../model/observation.ts';
import { netSentiment } from '../rules/sentiment.ts';
import { pairName, plural, rank, rating } from './format.ts';
import type { CompLine, LastDigest, SentimentLine } from './types.ts';

export type SentimentMemory = NonNullable<LastDigest['sentiment']>;

/** Books whose last answer listed comps (an empty list is no data, so such a book has no line). */
export function compLines(books: readonly BookObservation[]): CompLine[] {
  return books.flatMap((book) => {
    if (book.compTitles === undefined || book.compTitles.length === 0) return [];
    const comps = book.compTitles.map((c) => ({
      asin: c.asin,
      title: c.title,
      bsr: c.bsr,
      ahead: c.bsr === null || book.bsr === null ? null : c.bsr < book.bsr,
    }));
    comps.sort((a, b) => (a.bsr ?? Number.POSITIVE_INFINITY) - (b.bsr ?? Number.POSITIVE_INFINITY));
    return [{ asin: book.asin, marketplace: book.marketplace, title: book.title, bookBsr: book.bsr, comps }];
  });
}

export function sentimentLines(
  books: readonly BookObservation[],
  previous: LastDigest | null,
): SentimentLine[] {
  const before = new Map((previous?.sentiment ?? []).map((s) => [`${s.asin}|${s.marketplace}`, s]));
  return books.map((book) => {
    const last = before.get(`${book.asin}|${book.marketplace}`);
    return {
      asin: book.asin,
      marketplace: book.marketplace,
      title: book.title,
      reviewCount: book.reviewCount,
      averageRating: book.averageRating,
      net: netSentiment(book),
      positive: book.sentiment?.positive ?? null,
      negative: book.sentiment?.negative ?? null,
      ratingBefore: last?.averageRating ?? null,
      netBefore: last?.net ?? null,
    };
  });
}

/** What the next digest compares the sentiment with; books without a snapshot now keep the old figures. */
export function sentimentMemory(
  books: readonly BookObservation[],
  previous: LastDigest | null,
): SentimentMemory {
  const now = books.map((b) => ({
    asin: b.asin,
    marketplace: b.marketplace,
    averageRating: b.averageRating,
    net: netSentiment(b),
  }));
  const seen = new Set(now.map((s) => `${s.asin}|${s.marketplace}`));
  const carried = (previous?.sentiment ?? []).filter((s) => !seen.has(`${s.asin}|${s.marketplace}`));
  return [...now, ...carried];
}

export interface SectionText {
  heading: string;
  /** One entry per book: its line, then indented detail lines. */
  items: string[][];
}

export function compSection(lines: readonly CompLine[]): SectionText | null {
  if (lines.length === 0) return null;
  return {
    heading: 'Your book vs its comps (best-seller rank now; lower is better)',
    items: lines.map((line) => {
      const judged = line.comps.filter((c) => c.ahead !== null);
      const behind = judged.filter((c) => c.ahead === false).length;
      const summary =
        judged.length === 0
          ? 'no ranks to compare'
          : `ahead of ${behind} of ${plural(judged.length, 'comp title')}`;
      return [
        `${pairName(line, line.title)}: ${rank(line.bookBsr)}, ${summary}`,
        ...line.comps.map((c) => {
          const standing = c.ahead === null ? '' : c.ahead ? ' — ahead of your book' : ' — behind';
          return `${rank(c.bsr)} “${c.title}” (${c.asin})${standing}`;
        }),
      ];
    }),
  };
}

function signedPoints(n: number): string {
  const rounded = Math.round(n * 10) / 10;
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : '±'}${Math.abs(rounded)}`;
}

/** A book the API told nothing of its reviews' sentiment or rating: no line ("average —" says nothing). */
const hasSentiment = (line: SentimentLine): boolean =>
  line.averageRating !== null || line.net !== null || line.reviewCount !== null;

export function sentimentSection(lines: readonly SentimentLine[]): SectionText | null {
  const known = lines.filter(hasSentiment);
  if (known.length === 0) return null;
  return {
    heading: 'Review sentiment (trend since the last digest)',
    items: known.map((line) => {
      const parts: string[] = [];
      const was = line.ratingBefore === null ? '' : ` (was ${rating(line.ratingBefore)})`;
      parts.push(`average ${rating(line.averageRating)}${was}`);
      if (line.positive !== null && line.negative !== null) {
        parts.push(
          `${Math.round(line.positive * 100)}% positive, ${Math.round(line.negative * 100)}% negative`,
        );
      }
      if (line.net !== null) {
        const trend =
          line.netBefore === null
            ? ''
            : ` (${signedPoints(line.net - line.netBefore)} since the last digest)`;
        parts.push(`net ${signedPoints(line.net)} pts${trend}`);
      }
      if (line.reviewCount !== null) parts.push(plural(line.reviewCount, 'review'));
      return [`${pairName(line, line.title)}: ${parts.join(', ')}`];
    }),
  };
}
