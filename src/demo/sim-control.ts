/**
 * The demo's side of the simulator's control endpoint (`/_sim/`, see src/sim/README.md): read the
 * world to pick what to watch, and script events. Control calls are never counted against the
 * workspace's budget, so they do not show in the demo's budget figures.
 */
import { Agent, request } from 'undici';
import type { RunningSimulator } from '../sim/index.ts';

export interface SimWorldBook {
  asin: string;
  title: string;
  author: string;
  marketplaces: string[];
  keywords: string[];
}

export interface SimWorld {
  now: string;
  books: SimWorldBook[];
  campaigns: { campaign_id: string; asin: string }[];
}

export type SimEvent =
  | { type: 'keyword_rank'; asin: string; keyword: string; marketplace: string; rank: number | null }
  | { type: 'bsr'; asin: string; marketplace: string; rank: number | null }
  | {
      type: 'review';
      campaign_id: string;
      platform: 'amazon' | 'audible' | 'goodreads';
      rating: number;
      title?: string;
      body: string;
      reviewer: string;
    }
  | { type: 'sales_revision'; asin: string; marketplace: string; date: string; royalties?: string };

export class SimControl {
  private readonly agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: 10_000 });

  constructor(private readonly sim: Pick<RunningSimulator, 'url' | 'adminToken'>) {}

  private async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const res = await request(`${this.sim.url}${path}`, {
      method,
      dispatcher: this.agent,
      headers: { 'x-sim-admin-token': this.sim.adminToken, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
      ...(signal === undefined ? {} : { signal }),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300)
      throw new Error(`simulator ${method} ${path} answered ${res.statusCode}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  }

  async world(signal?: AbortSignal): Promise<SimWorld> {
    return (await this.call('GET', '/_sim/world', undefined, signal)) as SimWorld;
  }

  /** Applies an event at the current sim time; a review's answer carries its new id. */
  async event(event: SimEvent, signal?: AbortSignal): Promise<{ review_id?: string }> {
    const answer = await this.call('POST', '/_sim/events', event, signal);
    return typeof answer === 'object' && answer !== null ? (answer as { review_id?: string }) : {};
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
