import type { Rng } from '../prng.ts';
import { HOUR } from '../time.ts';
import type { Book } from './catalogue.ts';
import type { EventStore } from './events.ts';
import { currencyOf, type Marketplace } from './market.ts';
import { GENRES, KEYWORD_MODIFIERS, KEYWORD_SUFFIXES } from './words.ts';

export const MAX_BOOK_KEYWORDS = 1000;
/** Keyword ranks beyond this position are reported as unranked (null). */
const RANKED_DEPTH = 200;
/** Coprime to every combination count used here, so stepping by it visits each combination once. */
const STRIDE = 7919;

export interface KeywordStats {
  search_volume: number;
  competition: number;
  intent_score: number;
}

function twoDecimals(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Two significant digits, like the volumes keyword tools show (5400, 880). */
function roundVolume(value: number): number {
  if (value < 10) return Math.max(10, Math.round(value));
  const magnitude = 10 ** (Math.floor(Math.log10(value)) - 1);
  return Math.round(value / magnitude) * magnitude;
}

/** Volume, competition and intent of a keyword: the same wherever it appears (book keywords, search). */
export function keywordStats(rng: Rng, keyword: string, marketplace: Marketplace): KeywordStats {
  const words = keyword.split(' ').length;
  const log = 4.7 - 0.45 * (words - 1) + 0.6 * rng.signed('kw-volume', keyword);
  const market = currencyOf(marketplace).size;
  return {
    search_volume: roundVolume(10 ** log * market ** 0.8),
    competition: twoDecimals(rng.unit('kw-competition', keyword, marketplace)),
    intent_score: twoDecimals(rng.unit('kw-intent', keyword)),
  };
}

function composeKeyword(index: number, nouns: readonly string[]): string {
  const modifiers = KEYWORD_MODIFIERS.length;
  const suffixes = KEYWORD_SUFFIXES.length;
  const modifier = KEYWORD_MODIFIERS[index % modifiers]!;
  const suffix = KEYWORD_SUFFIXES[Math.floor(index / modifiers) % suffixes]!;
  const noun = nouns[Math.floor(index / (modifiers * suffixes)) % nouns.length]!;
  return [modifier, noun, suffix].filter((part) => part !== '').join(' ');
}

/** Generates the keyword lists of books, keeping the most recent ones (a 1,000-book run stays small). */
export class KeywordCatalogue {
  private readonly cache = new Map<string, readonly string[]>();

  constructor(private readonly rng: Rng) {}

  /**
   * The book's organic keywords, best traffic share first; with `limit`, only that many, which is
   * the same prefix (the generation order never changes) without building the whole list.
   */
  forBook(book: Book, limit = book.keywordCount): readonly string[] {
    const cached = this.cache.get(book.asin);
    if (cached !== undefined) return limit >= cached.length ? cached : cached.slice(0, limit);
    const wanted = Math.min(limit, book.keywordCount);
    const nouns = GENRES[book.genre] ?? GENRES[0] ?? ['book'];
    const combinations = KEYWORD_MODIFIERS.length * KEYWORD_SUFFIXES.length * nouns.length;
    const seen = new Set<string>([book.title.toLowerCase(), `${book.author.toLowerCase()} books`]);
    const offset = this.rng.int(0, combinations - 1, 'kw-offset', book.asin);
    for (let i = 0; seen.size < wanted && i < combinations; i++) {
      seen.add(composeKeyword((offset + i * STRIDE) % combinations, nouns));
    }
    const list = [...seen].slice(0, wanted);
    if (wanted < book.keywordCount) return list;
    if (this.cache.size >= 256) this.cache.delete(this.cache.keys().next().value ?? '');
    this.cache.set(book.asin, list);
    return list;
  }

  /** Position of the keyword in the book's generated list, or undefined when the book has no such keyword. */
  positionOf(book: Book, keyword: string): number | undefined {
    const index = this.forBook(book).indexOf(keyword);
    return index < 0 ? undefined : index;
  }

  /** Generated keywords plus those scripted events gave the book, capped at the contract's 1,000. */
  withEvents(book: Book, marketplace: Marketplace, events: EventStore): readonly string[] {
    const extra = events.eventKeywords(book.asin, marketplace);
    const base = this.forBook(book);
    if (extra.length === 0) return base;
    const known = new Set(base);
    const added = extra.filter((keyword) => !known.has(keyword));
    if (added.length === 0) return base;
    return [...base.slice(0, Math.max(0, MAX_BOOK_KEYWORDS - added.length)), ...added];
  }
}

/** Traffic shares falling with position (Zipf-like), together a little under 1. */
export function trafficShares(count: number): number[] {
  const weights = Array.from({ length: count }, (_, i) => (i + 1) ** -0.85);
  const total = weights.reduce((sum, w) => sum + w, 0);
  return weights.map((w) => Math.round((0.95 * w * 1e6) / total) / 1e6);
}

/**
 * The rank series of a keyword for a book, by the epoch ms of the hour's start, scripted events
 * first. The generated rank depends on the keyword's position in the book's list (tail keywords
 * are mostly unranked); `position` is undefined for a keyword only a scripted event gave the book,
 * which did not rank before that event.
 */
export function keywordRankSeries(
  rng: Rng,
  events: EventStore,
  book: Book,
  position: number | undefined,
  keyword: string,
  marketplace: Marketplace,
): (hourMs: number) => number | null {
  const key = rng.key('kw-rank', book.asin, keyword, marketplace);
  const base = 1 + rng.unit(key) * (4 + 0.25 * (position ?? 0));
  return (hourMs) => {
    const override = events.keywordRank(book.asin, marketplace, keyword, hourMs);
    if (override !== undefined) return override.rank;
    if (position === undefined) return null;
    const hour = hourMs / HOUR;
    const noise = 0.15 * rng.valueNoise(6, hour, key) + 0.3 * rng.valueNoise(48, hour, key);
    const rank = Math.max(1, Math.round(base * 10 ** noise));
    return rank > RANKED_DEPTH ? null : rank;
  };
}

export function normalizeQuery(q: string): string {
  return q.trim().toLowerCase().replace(/\s+/g, ' ');
}

/**
 * Keyword search for any query: the query itself and combinations around it. Broad (one-word)
 * queries give a few hundred results, so clients meet several pages; narrow ones a handful.
 */
export function searchKeywords(
  rng: Rng,
  q: string,
  marketplace: Marketplace,
): (KeywordStats & { keyword: string })[] {
  const query = normalizeQuery(q);
  const words = query.split(' ').length;
  const wanted =
    words === 1
      ? rng.int(150, 400, 'search-size', query)
      : words === 2
        ? rng.int(40, 120, 'search-size', query)
        : rng.int(3, 30, 'search-size', query);
  const found = new Set<string>([query]);
  const modifiers = KEYWORD_MODIFIERS.length;
  const suffixes = KEYWORD_SUFFIXES.length;
  const combinations = modifiers * suffixes;
  const offset = rng.int(0, combinations - 1, 'search-offset', query);
  for (let i = 0; found.size < wanted && i < combinations; i++) {
    const index = (offset + i * STRIDE) % combinations;
    const modifier = KEYWORD_MODIFIERS[index % modifiers]!;
    const suffix = KEYWORD_SUFFIXES[Math.floor(index / modifiers)]!;
    found.add([modifier, query, suffix].filter((part) => part !== '').join(' '));
  }
  return [...found]
    .map((keyword) => ({ keyword, ...keywordStats(rng, keyword, marketplace) }))
    .sort(
      (a, b) =>
        b.search_volume - a.search_volume || (a.keyword < b.keyword ? -1 : a.keyword > b.keyword ? 1 : 0),
    );
}
