import { Agent, request } from 'undici';
import type { RequestLogEntry, RunningSimulator, SimFaultRates } from '../../src/sim/index.ts';

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
export class SimAdmin {
  private readonly agent = new Agent();

  constructor(private readonly sim: RunningSimulator) {}

  private async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.sim.url}${path}`, {
      method,
      dispatcher: this.agent,
      headers: { 'x-sim-admin-token': this.sim.adminToken, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path} → ${res.statusCode}: ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

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

  close(): Promise<void> {
    return this.agent.close();
  }
}
