/** How probe matches a logical field's name to the members of an answer it has never seen. Pure. */

/** Words that name the same thing in APIs we have not seen: expanded on both sides of a match. */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  asin: ['product', 'item', 'sku', 'isbn'],
  rank: ['position', 'pos', 'current', 'ranking', 'place'],
  bsr: ['salesrank', 'sales', 'rank'],
  title: ['name', 'headline'],
  author: ['contributor', 'contributors', 'primary', 'writer'],
  keyword: ['term', 'query', 'phrase'],
  keywords: ['terms', 'keyword'],
  search: ['searches', 'monthly'],
  volume: ['searches', 'monthly'],
  share: ['traffic'],
  competition: ['competitive', 'difficulty'],
  intent: ['buyer'],
  body: ['text', 'content'],
  reviewer: ['author', 'display', 'user'],
  url: ['link', 'href'],
  published: ['posted', 'created'],
  observed: ['updated', 'asof', 'timestamp'],
  date: ['day'],
  units: ['unit', 'quantity', 'sold'],
  royalties: ['royalty', 'earnings', 'revenue'],
  spend: ['ad', 'advertising', 'cost'],
  rating: ['stars', 'score', 'average'],
  count: ['total', 'number'],
  code: ['error', 'type'],
  message: ['detail', 'description', 'msg', 'reason'],
  request: ['trace', 'correlation'],
  points: ['series', 'history', 'values'],
  history: ['series', 'points'],
  organic: ['keywords'],
  comp: ['comparables', 'comps', 'similar'],
  marketplace: ['market', 'locale', 'site', 'domain', 'region'],
  platform: ['source', 'channel'],
  details: ['violations', 'errors', 'fields'],
  path: ['field', 'pointer'],
  status: ['state', 'result'],
  invites: ['results', 'invitations'],
  category: ['category'],
};

/** `salesRank.categoryName` → sales, rank, category, name. */
export function words(path: string): string[] {
  return path
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !/^\d+$/.test(w));
}

/** The words of a name with their synonyms. */
export function expanded(name: string): Set<string> {
  const out = new Set<string>();
  for (const w of words(name)) {
    out.add(w);
    for (const s of SYNONYMS[w] ?? []) out.add(s);
  }
  return out;
}
