import { type RequestLogEntry, SimControlClient, type SimFaultRates } from '../../src/sim/index.ts';

export interface SimWorld {
  now: string;
  books: { asin: string; title: string; author: string; marketplaces: string[] }[];
  campaigns: { campaign_id: string; asin: string }[];
}

export interface SimFault {
  kind: 'status' | 'html' | 'slow' | 'malformed_json' | 'reset_connection';
  count?: number;
  pathPrefix?: string;
  status?: number;
  code?: string;
  retryAfter?: { seconds: number } | { date: true; seconds?: number };
  delayMs?: number;
}

/** The simulator's control endpoint (`/_sim/`): events, faults, the request log. */
export class SimAdmin extends SimControlClient {
  world(): Promise<SimWorld> {
    return this.call('GET', '/_sim/world');
  }

  event(body: Record<string, unknown>): Promise<{ ok: boolean; review_id?: string }> {
    return this.call('POST', '/_sim/events', body);
  }

  fault(fault: SimFault): Promise<unknown> {
    return this.call('POST', '/_sim/faults', fault);
  }

  rates(rates: SimFaultRates): Promise<unknown> {
    return this.call('PUT', '/_sim/faults/rates', rates);
  }

  /** Clears queued faults and rates. */
  clearFaults(): Promise<unknown> {
    return this.call('DELETE', '/_sim/faults');
  }

  async requests(): Promise<RequestLogEntry[]> {
    return (await this.call<{ data: RequestLogEntry[] }>('GET', '/_sim/requests')).data;
  }
}
