/**
 * The assumed contract (docs/openapi.yaml) as a contract file. Mirrored word for word by
 * default-contract.yaml, which users copy and edit; test/contract/default.test.ts keeps the two equal
 * and checks them against docs/openapi.yaml. A user's file overrides only what differs (merge.ts).
 */
import type { ContractFile } from './schema.ts';

const rankPoint = { at: { path: 'at', format: 'iso' }, rank: { path: 'rank', unranked: [null] } };

export const DEFAULT_CONTRACT = {
  version: 1,
  enums: { marketplace: {}, platform: {}, inviteStatus: {} },
  params: {
    marketplace: 'marketplace',
    from: 'from',
    to: 'to',
    since: 'since',
    campaign: 'campaign_id',
    query: 'q',
    asin: 'asin',
    keyword: 'keyword',
    platform: 'platform',
  },
  // `total` (items in the whole list) is optional: when an answer states it, the walk is checked against it.
  pagination: {
    cursor: { param: 'cursor', next: 'next_cursor', total: 'total' },
    limit: { param: 'limit', max: 100 },
  },
  endpoints: {
    book: {
      root: '',
      fields: {
        asin: 'asin',
        marketplace: 'marketplace',
        title: 'title',
        author: 'author',
        bsrRank: { path: 'bsr.rank', unranked: [null] },
        bsrCategory: 'bsr.category',
        observedAt: { path: 'bsr.observed_at', format: 'iso' },
        bsrHistory: { path: 'bsr.history', items: rankPoint },
        organicKeywords: {
          path: 'organic_keywords',
          items: { keyword: 'keyword', rank: { path: 'rank', unranked: [null] } },
        },
        compTitles: {
          path: 'comp_titles',
          items: { asin: 'asin', title: 'title', bsr: { path: 'bsr', unranked: [null] } },
        },
        rating: { path: 'review_sentiment.average_rating', unranked: [null] },
        reviewCount: 'review_sentiment.review_count',
        positive: 'review_sentiment.positive',
        neutral: 'review_sentiment.neutral',
        negative: 'review_sentiment.negative',
      },
    },
    bookKeywords: {
      root: '',
      fields: {
        asin: 'asin',
        keywords: {
          path: 'data',
          items: {
            keyword: 'keyword',
            rank: { path: 'rank', unranked: [null] },
            searchVolume: 'search_volume',
            trafficShare: 'traffic_share',
          },
        },
      },
    },
    keywordSearch: {
      items: 'data',
      fields: {
        keyword: 'keyword',
        searchVolume: 'search_volume',
        competition: 'competition',
        intentScore: 'intent_score',
      },
    },
    rankings: {
      items: 'data',
      fields: {
        asin: 'asin',
        keyword: 'keyword',
        marketplace: 'marketplace',
        points: { path: 'points', items: rankPoint },
      },
    },
    reviews: {
      items: 'data',
      fields: {
        reviewId: 'review_id',
        campaignId: 'campaign_id',
        asin: 'asin',
        platform: 'platform',
        rating: 'rating',
        title: 'title',
        body: 'body',
        reviewer: 'reviewer',
        url: 'url',
        publishedAt: { path: 'published_at', format: 'iso' },
      },
    },
    sales: {
      items: 'data',
      fields: {
        asin: 'asin',
        marketplace: 'marketplace',
        date: { path: 'date', format: 'date' },
        units: 'units',
        royalties: { path: 'royalties', format: 'decimal_string', amount: 'amount', currency: 'currency' },
        adSpend: { path: 'ad_spend', format: 'decimal_string', amount: 'amount', currency: 'currency' },
      },
    },
    invites: {
      root: '',
      fields: {
        campaignId: 'campaign_id',
        invites: { path: 'data', items: { inviteId: 'invite_id', email: 'email', status: 'status' } },
      },
    },
    error: {
      root: 'error',
      fields: {
        code: 'code',
        message: 'message',
        requestId: 'request_id',
        details: { path: 'details', items: { path: 'path', message: 'message' } },
      },
    },
  },
  errors: {
    codes: {},
    statuses: {
      '400': 'invalid_request',
      '401': 'unauthorized',
      '403': 'forbidden',
      '404': 'not_found',
      '409': 'conflict',
      '422': 'validation_failed',
      '429': 'rate_limited',
    },
  },
  rateLimit: {
    retryAfter: 'Retry-After',
    reset: { header: 'X-RateLimit-Reset', format: 'epoch_s' },
    limit: 'X-RateLimit-Limit',
    remaining: 'X-RateLimit-Remaining',
    quotaLimit: 'X-Quota-Limit',
    quotaRemaining: 'X-Quota-Remaining',
  },
  requestIdHeader: 'X-Request-Id',
} as const satisfies ContractFile;
