/**
 * Everything shelfwatch reads from an answer, named once: the logical fields of each endpoint, the
 * kind of value each one is, and where it lands in the client's own (canonical) shape, which is the
 * shape of src/api/schemas.ts. A contract file says where each logical field is in the API's answer;
 * nothing else in shelfwatch knows the API's field names.
 */

/** What a value is; decides which formats a field may name. */
export type FieldKind =
  | 'string'
  | 'nullableString'
  | 'int'
  | 'number'
  | 'rank'
  | 'rating'
  | 'time'
  | 'date'
  | 'money'
  | 'marketplace'
  | 'platform'
  | 'inviteStatus'
  | 'finality'
  | 'list';

export interface LogicalField {
  kind: FieldKind;
  /** Dotted path in the canonical shape, relative to the endpoint's object or the list item. */
  canonical: string;
  /** What the field means, for docs and error messages. */
  about: string;
  /** For lists: the fields of one item. */
  items?: Readonly<Record<string, LogicalField>>;
  /** May be absent from the answer (the canonical value is then left out). */
  optional?: boolean;
}

const f = (kind: FieldKind, canonical: string, about: string, optional?: boolean): LogicalField =>
  optional === true ? { kind, canonical, about, optional } : { kind, canonical, about };
const list = (canonical: string, about: string, items: Record<string, LogicalField>): LogicalField => ({
  kind: 'list',
  canonical,
  about,
  items,
});

const rankPoint = { at: f('time', 'at', 'when the rank was seen'), rank: f('rank', 'rank', 'the rank then') };

export const ENDPOINT_NAMES = [
  'book',
  'bookKeywords',
  'keywordSearch',
  'rankings',
  'reviews',
  'sales',
  'invites',
  'error',
] as const;
export type EndpointName = (typeof ENDPOINT_NAMES)[number];
/** The endpoints answering a paginated list; their `items` are the fields of one list item. */
export const LIST_ENDPOINTS = ['keywordSearch', 'rankings', 'reviews', 'sales'] as const;
export type ListEndpointName = (typeof LIST_ENDPOINTS)[number];

export function isListEndpoint(name: EndpointName): name is ListEndpointName {
  return (LIST_ENDPOINTS as readonly string[]).includes(name);
}

export const CATALOG: Readonly<Record<EndpointName, Readonly<Record<string, LogicalField>>>> = {
  book: {
    asin: f('string', 'asin', 'the book ASIN'),
    marketplace: f('marketplace', 'marketplace', 'the marketplace of the figures'),
    title: f('string', 'title', 'book title'),
    author: f('string', 'author', 'author name'),
    bsrRank: f('rank', 'bsr.rank', 'best-seller rank now'),
    bsrCategory: f('string', 'bsr.category', 'category of the rank'),
    observedAt: f('time', 'bsr.observed_at', 'when the rank was observed'),
    bsrHistory: list('bsr.history', 'best-seller rank history points', rankPoint),
    organicKeywords: list('organic_keywords', 'keywords the book ranks for', {
      keyword: f('string', 'keyword', 'the keyword'),
      rank: f('rank', 'rank', 'the rank for it'),
    }),
    compTitles: list('comp_titles', 'comparable titles', {
      asin: f('string', 'asin', 'their ASIN'),
      title: f('string', 'title', 'their title'),
      bsr: f('rank', 'bsr', 'their best-seller rank'),
    }),
    rating: f('rating', 'review_sentiment.average_rating', 'average star rating (null: no reviews)'),
    reviewCount: f('int', 'review_sentiment.review_count', 'number of reviews'),
    positive: f('number', 'review_sentiment.positive', 'positive share 0..1'),
    neutral: f('number', 'review_sentiment.neutral', 'neutral share 0..1'),
    negative: f('number', 'review_sentiment.negative', 'negative share 0..1'),
  },
  bookKeywords: {
    asin: f('string', 'asin', 'the book ASIN'),
    keywords: list('data', 'the keywords', {
      keyword: f('string', 'keyword', 'the keyword'),
      rank: f('rank', 'rank', 'the book rank for it'),
      searchVolume: f('int', 'search_volume', 'searches a month'),
      trafficShare: f('number', 'traffic_share', 'share of the book traffic 0..1'),
    }),
  },
  keywordSearch: {
    keyword: f('string', 'keyword', 'the keyword'),
    searchVolume: f('int', 'search_volume', 'searches a month'),
    competition: f('number', 'competition', 'competition 0..1'),
    intentScore: f('number', 'intent_score', 'buyer intent 0..1'),
  },
  rankings: {
    asin: f('string', 'asin', 'the book ASIN'),
    keyword: f('string', 'keyword', 'the keyword'),
    marketplace: f('marketplace', 'marketplace', 'the marketplace'),
    points: list('points', 'rank points', rankPoint),
  },
  reviews: {
    reviewId: f('string', 'review_id', 'review id'),
    campaignId: f('string', 'campaign_id', 'ARC campaign id'),
    asin: f('string', 'asin', 'the book ASIN'),
    platform: f('platform', 'platform', 'where it was posted'),
    rating: f('int', 'rating', 'stars 1..5'),
    title: f('nullableString', 'title', 'review title'),
    body: f('string', 'body', 'review text'),
    reviewer: f('string', 'reviewer', 'reviewer name'),
    url: f('nullableString', 'url', 'link to the review'),
    publishedAt: f('time', 'published_at', 'when it was published'),
  },
  sales: {
    asin: f('string', 'asin', 'the book ASIN'),
    marketplace: f('marketplace', 'marketplace', 'the marketplace'),
    date: f('date', 'date', 'the UTC day'),
    units: f('int', 'units', 'net units'),
    royalties: f('money', 'royalties', 'royalties earned'),
    adSpend: f('money', 'ad_spend', 'advertising spend'),
    final: f(
      'finality',
      'final',
      'whether the day is final (not provisional); read only when the contract names it',
      true,
    ),
  },
  invites: {
    campaignId: f('string', 'campaign_id', 'ARC campaign id'),
    invites: list('data', 'one result per reader', {
      inviteId: f('string', 'invite_id', 'invite id'),
      email: f('string', 'email', 'reader email'),
      status: f('inviteStatus', 'status', 'invited or already_invited'),
    }),
  },
  error: {
    code: f('string', 'code', 'the error code'),
    message: f('string', 'message', 'the error message'),
    requestId: f('string', 'request_id', 'request id for support', true),
    details: {
      ...list('details', 'validation details (422)', {
        path: f('string', 'path', 'where in the request'),
        message: f('string', 'message', 'what is wrong'),
      }),
      optional: true,
    },
  },
};

/**
 * The body of `POST /v1/arc/invites` (what shelfwatch sends): written through the contract's
 * `endpoints.invites.request` by the same paths and formats as answers are read.
 */
export const INVITE_REQUEST: Readonly<Record<string, LogicalField>> = {
  campaignId: f('string', 'campaign_id', 'ARC campaign id'),
  readers: list('readers', 'the readers to invite', {
    email: f('string', 'email', 'reader email'),
    name: f('string', 'name', 'reader name'),
  }),
  message: f('string', 'message', 'the message to the readers', true),
};

/** Which formats a kind may name; the first is what the kind means without one. */
export const FORMATS_BY_KIND: Readonly<Partial<Record<FieldKind, readonly string[]>>> = {
  time: ['iso', 'epoch_s', 'epoch_ms', 'epoch_min'],
  date: ['date', 'iso', 'epoch_s', 'epoch_ms', 'epoch_min'],
  finality: ['final', 'provisional', 'enum'],
  money: ['decimal_string', 'major_number', 'minor_units'],
  // Numbers sent as text ("2541") are read with `format: string`.
  int: ['number', 'string'],
  number: ['number', 'string'],
  rank: ['number', 'string'],
  rating: ['number', 'string'],
};
