/** The decoded keyword dictionaries a snapshot store keeps in process, and how it reads through them. */
import type { EncodedDictionary } from './encoding.ts';

/** Decoded dictionaries by id; content-addressed, so a cached entry can never be stale. */
export class DictionaryCache {
  private readonly entries = new Map<string, readonly string[]>();

  constructor(private readonly capacity: number) {}

  get(id: string): readonly string[] | undefined {
    const hit = this.entries.get(id);
    if (hit !== undefined) {
      // Map keeps insertion order: re-inserting makes this the most recently used entry.
      this.entries.delete(id);
      this.entries.set(id, hit);
    }
    return hit;
  }

  set(dictionary: Pick<EncodedDictionary, 'id' | 'keywords'>): void {
    this.entries.delete(dictionary.id);
    this.entries.set(dictionary.id, dictionary.keywords);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }
}

/** Where a store finds dictionaries: its cache first, then its backing storage. */
export interface DictionarySource {
  cached(id: string): readonly string[] | undefined;
  load(id: string): Promise<Buffer | null>;
  remember(id: string, keywords: readonly string[]): void;
}

/**
 * One workspace's dictionaries as a store keeps them: cached and loaded by their store key
 * (`keyOf`), so the cache entry of a dictionary also means "recently seen in the store".
 */
export function storeDictionaries(
  cache: DictionaryCache,
  keyOf: (id: string) => string,
  load: (key: string) => Promise<Buffer | null>,
): DictionarySource {
  return {
    cached: (id) => cache.get(keyOf(id)),
    load: (id) => load(keyOf(id)),
    remember: (id, keywords) => cache.set({ id: keyOf(id), keywords }),
  };
}
