import type { Rng } from '../prng.ts';
import { DAY, floorTo } from '../time.ts';
import { MARKETPLACES, type Marketplace } from './market.ts';
import { FIRST_NAMES, GENRES, LAST_NAMES, TITLE_ADJECTIVES, TITLE_NOUNS } from './words.ts';

/**
 * The static part of the world: which books exist and their fixed traits. Time-varying values
 * (ranks, reviews, sales) are computed from these traits and the hour, elsewhere.
 *
 * Every workspace sees the same account catalogue: the simulator models one shared account, which
 * keeps scripted events and tests simple. Comparable titles come from a separate market pool:
 * those books answer on /v1/books but are not in the account (rankings and sales say 404).
 */
export interface Book {
  readonly asin: string;
  readonly title: string;
  readonly author: string;
  readonly genre: number;
  readonly marketplaces: readonly Marketplace[];
  readonly keywordCount: number;
  readonly inAccount: boolean;
  /** log10 of the US rank the book hovers around. */
  readonly baseLogRank: number;
  readonly priceUsdCents: number;
  /** Daily ad budget in US cents; 0 for books without ads. */
  readonly adBudgetUsdCents: number;
  readonly rating: number;
  readonly reviewBase: number;
  readonly reviewsPerDay: number;
  readonly comps: readonly string[];
}

export interface Campaign {
  readonly campaignId: string;
  readonly asin: string;
  /** Reviews arrive from this instant on. */
  readonly startMs: number;
}

const ASIN_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];

function makeAsin(rng: Rng, kind: string, index: number, taken: ReadonlySet<string>): string {
  for (let attempt = 0; ; attempt++) {
    let asin = 'B0';
    for (let i = 0; i < 8; i++) asin += rng.pick(ASIN_CHARS, 'asin', kind, index, attempt, i);
    if (!taken.has(asin)) return asin;
  }
}

function makeTitle(rng: Rng, kind: string, index: number): string {
  const adjective = rng.pick(TITLE_ADJECTIVES, 'title-adj', kind, index);
  const noun = rng.pick(TITLE_NOUNS, 'title-noun', kind, index);
  return rng.chance(0.5, 'title-form', kind, index) ? `The ${adjective} ${noun}` : `${adjective} ${noun}`;
}

function makeMarketplaces(rng: Rng, index: number): Marketplace[] {
  const others = MARKETPLACES.filter((m) => m !== 'US');
  const count = rng.int(0, 2, 'market-count', index);
  const chosen: Marketplace[] = ['US'];
  for (let i = 0; chosen.length < count + 1; i++) {
    const candidate = rng.pick(others, 'market', index, i);
    if (!chosen.includes(candidate)) chosen.push(candidate);
  }
  return chosen;
}

/** Books and campaigns the simulator must serve as given (`shelfwatch sim --config FILE`). */
export interface FixedCatalogue {
  books?: readonly { asin: string; marketplaces: readonly Marketplace[] }[];
  campaigns?: readonly string[];
}

export interface CatalogueOptions {
  /** Account books in all: the fixed ones first, then generated ones up to this count. */
  books: number;
  /** ARC campaigns in all: the fixed ids first, then generated ones up to this count. */
  campaigns: number;
  fixed?: FixedCatalogue;
  /** The simulator's start: ARC campaigns open shortly before it, so reviews exist from the first poll. */
  startMs: number;
}

export class Catalogue {
  readonly books: readonly Book[];
  readonly pool: readonly Book[];
  readonly campaigns: readonly Campaign[];
  private readonly byAsin = new Map<string, Book>();
  private readonly campaignById = new Map<string, Campaign>();

  constructor(rng: Rng, options: CatalogueOptions) {
    const fixedBooks = options.fixed?.books ?? [];
    const fixedCampaigns = options.fixed?.campaigns ?? [];
    const taken = new Set<string>(fixedBooks.map((b) => b.asin));
    const poolSize = Math.max(20, Math.ceil(options.books / 5));
    const pool: Book[] = [];
    for (let i = 0; i < poolSize; i++) {
      const asin = makeAsin(rng, 'pool', i, taken);
      taken.add(asin);
      pool.push(this.makeBook(rng, 'pool', i, asin, [...MARKETPLACES], []));
    }
    const books: Book[] = [];
    for (let i = 0; i < Math.max(options.books, fixedBooks.length); i++) {
      const fixed = fixedBooks[i];
      const asin = fixed?.asin ?? makeAsin(rng, 'account', i, taken);
      taken.add(asin);
      const compCount = rng.int(3, 5, 'comp-count', i);
      const comps: string[] = [];
      for (let c = 0; comps.length < Math.min(compCount, pool.length); c++) {
        const comp = rng.pick(pool, 'comp', i, c).asin;
        if (!comps.includes(comp)) comps.push(comp);
      }
      const marketplaces = fixed === undefined ? makeMarketplaces(rng, i) : [...fixed.marketplaces];
      books.push(this.makeBook(rng, 'account', i, asin, marketplaces, comps));
    }
    for (const book of [...books, ...pool]) this.byAsin.set(book.asin, book);
    this.books = books;
    this.pool = pool;

    const campaigns: Campaign[] = [];
    const startDay = floorTo(options.startMs, DAY);
    for (let c = 0; c < Math.max(options.campaigns, fixedCampaigns.length) && books.length > 0; c++) {
      const book = books[(c * 7) % books.length]!;
      const campaign = {
        campaignId: fixedCampaigns[c] ?? `arc_${rng.hex(10, 'campaign', c)}`,
        asin: book.asin,
        startMs: startDay - (3 + 2 * c) * DAY,
      };
      campaigns.push(campaign);
      this.campaignById.set(campaign.campaignId, campaign);
    }
    this.campaigns = campaigns;
  }

  private makeBook(
    rng: Rng,
    kind: 'account' | 'pool',
    index: number,
    asin: string,
    marketplaces: Marketplace[],
    comps: string[],
  ): Book {
    const inAccount = kind === 'account';
    // One account book carries the contract's maximum of 1,000 keywords, so clients meet it.
    const keywordCount =
      inAccount && index === 0 ? 1000 : 20 + Math.floor(rng.unit('kw-count', kind, index) ** 2 * 980);
    return {
      asin,
      title: makeTitle(rng, kind, index),
      author: `${rng.pick(FIRST_NAMES, 'first', kind, index)} ${rng.pick(LAST_NAMES, 'last', kind, index)}`,
      genre: rng.int(0, GENRES.length - 1, 'genre', kind, index),
      marketplaces,
      keywordCount,
      inAccount,
      // Pool books are the bestsellers authors compare themselves with: better ranks.
      baseLogRank: inAccount
        ? rng.between(3, 5.6, 'base-rank', index)
        : rng.between(1.5, 3.8, 'pool-rank', index),
      priceUsdCents: rng.pick([299, 399, 499, 599, 699, 999], 'price', kind, index),
      adBudgetUsdCents: rng.chance(0.6, 'ads', kind, index)
        ? rng.int(300, 4000, 'ad-budget', kind, index)
        : 0,
      rating: Math.round(rng.between(3.6, 4.8, 'rating', kind, index) * 10) / 10,
      reviewBase: rng.int(3, 400, 'review-base', kind, index),
      reviewsPerDay: rng.between(0.02, 1.2, 'review-rate', kind, index),
      comps,
    };
  }

  book(asin: string): Book | undefined {
    return this.byAsin.get(asin);
  }

  accountBook(asin: string): Book | undefined {
    const book = this.byAsin.get(asin);
    return book?.inAccount === true ? book : undefined;
  }

  campaign(id: string): Campaign | undefined {
    return this.campaignById.get(id);
  }
}
