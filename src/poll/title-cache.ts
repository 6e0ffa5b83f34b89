/**
 * Titles of books a workspace does not watch but hears about (the book of an ARC campaign): asked
 * of the API once (`GET /v1/books/{asin}`, one request charged to the workspace's budget through the
 * background client's gate, which refuses what the plan cannot afford and keeps the reserve), then
 * kept in Redis with a TTL so later polls and other processes name the book without asking again.
 */
import type { Cluster, Redis } from 'ioredis';
import { type AnalyticsClient, NotFoundError } from '../api/index.ts';
import type { Logger } from '../ops/logger.ts';
import type { BookName } from '../rules/scope.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { DAY_MS, MINUTE_MS } from '../util/time-units.ts';
import { bookTitleKey } from './keys.ts';

/** A title changes rarely; a month keeps lookups to about one per unwatched book a month. */
const KNOWN_TTL_MS = 30 * DAY_MS;
/** An ASIN the API does not know is asked again a day later (it may be a pre-order not listed yet). */
const UNKNOWN_TTL_MS = DAY_MS;
/** Long enough for one lookup; a process that dies while asking frees the claim soon. */
const CLAIM_TTL_MS = MINUTE_MS;
const UNKNOWN = '-';

export class TitleCache {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: KeyPrefix,
  ) {}

  /** The cached name; null when the API said it has no such book; undefined when never asked. */
  async get(workspace: string, asin: string): Promise<BookName | null | undefined> {
    const raw = await this.redis.get(bookTitleKey(this.prefix, workspace, asin));
    if (raw === null || raw.startsWith('?')) return undefined;
    if (raw === UNKNOWN) return null;
    return parseName(raw);
  }

  /**
   * The book's name, from the cache or from one request. Undefined when it is not known and may
   * not be asked now: the budget refused (never a request the plan cannot afford), another
   * process is asking, or the API failed (asked again on a later poll).
   */
  async lookUp(
    deps: { client: AnalyticsClient; logger: Logger; signal: AbortSignal },
    workspace: string,
    asin: string,
  ): Promise<BookName | undefined> {
    const cached = await this.get(workspace, asin);
    if (cached !== undefined) return cached ?? undefined;
    const key = bookTitleKey(this.prefix, workspace, asin);
    // The claim is the key itself ('?'), so the answer replaces it in one write.
    const claimed = await this.redis.set(key, '?', 'PX', CLAIM_TTL_MS, 'NX');
    if (claimed !== 'OK') return undefined;
    try {
      const { data } = await deps.client.getBook(asin, { signal: deps.signal });
      const name: BookName = { title: data.title, author: data.author === '' ? null : data.author };
      await this.redis.set(key, JSON.stringify(name), 'PX', KNOWN_TTL_MS);
      return name;
    } catch (error) {
      if (error instanceof NotFoundError) {
        await this.redis.set(key, UNKNOWN, 'PX', UNKNOWN_TTL_MS);
        return undefined;
      }
      await this.redis.del(key);
      deps.logger.info(
        { workspace, asin, err: error },
        'could not look up the title of a book not watched; it is named by its ASIN for now',
      );
      return undefined;
    }
  }
}

function parseName(raw: string): BookName | undefined {
  try {
    const value = JSON.parse(raw) as { title?: unknown; author?: unknown };
    if (typeof value.title !== 'string') return undefined;
    return { title: value.title, author: typeof value.author === 'string' ? value.author : null };
  } catch {
    return undefined;
  }
}
