import { Agent, request } from 'undici';
import type {
  SimEventAnswer,
  SimEventInput,
  SimFaultInput,
  SimKeyInput,
  SimLoggedRequest,
  SimRatesInput,
  SimWorld,
} from './control-schemas.ts';

/** Where a running simulator's control endpoint is, and the token it wants. */
export interface SimControlTarget {
  url: string;
  adminToken: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * A client of the simulator's control endpoint (`/_sim/…`: never counted, never logged), for the
 * test suites, the demo and benchmarks that drive a simulator: one place that sends the admin
 * token, reads the answer and turns a refusal into an error naming the call. The typed methods
 * take the bodies of control-schemas.ts, so a caller cannot drift from what the endpoint accepts.
 */
export class SimControlClient {
  private readonly agent: Agent;

  constructor(
    private readonly target: SimControlTarget,
    options: { connections?: number } = {},
  ) {
    // A stuck simulator must fail the caller, not hang it: the demo runs this against a child process.
    this.agent = new Agent({
      connect: { timeout: 5_000 },
      headersTimeout: 10_000,
      ...(options.connections === undefined ? {} : { connections: options.connections }),
    });
  }

  /** The parsed JSON answer (undefined for an empty one); an error for any status from 300. */
  async call<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await request(`${this.target.url}${path}`, {
      method,
      dispatcher: this.agent,
      headers: { 'x-sim-admin-token': this.target.adminToken, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
      ...(signal === undefined ? {} : { signal }),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) {
      throw new Error(`${method} ${path} → ${res.statusCode}: ${text.slice(0, 300)}`);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  world(signal?: AbortSignal): Promise<SimWorld> {
    return this.call('GET', '/_sim/world', undefined, signal);
  }

  /** Applies an event at the current sim time. */
  event(event: SimEventInput, signal?: AbortSignal): Promise<SimEventAnswer> {
    return this.call('POST', '/_sim/events', event, signal);
  }

  /** Queues a scripted fault for the next matching requests. */
  async fault(fault: SimFaultInput): Promise<void> {
    await this.call('POST', '/_sim/faults', fault);
  }

  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/_sim/faults');
  }

  async setRates(rates: SimRatesInput): Promise<void> {
    await this.call('PUT', '/_sim/faults/rates', rates);
  }

  async addKey(key: SimKeyInput): Promise<void> {
    await this.call('POST', '/_sim/keys', key);
  }

  async revoke(key: string): Promise<void> {
    await this.call('POST', '/_sim/keys/revoke', { key });
  }

  /** Moves the sim clock forward; answers the new sim time. */
  async advance(ms: number): Promise<string> {
    return (await this.call<{ now: string }>('POST', '/_sim/clock', { advanceMs: ms })).now;
  }

  /** Logged API requests after `sinceSeq` (exclusive), oldest first. */
  async requests(sinceSeq = 0): Promise<SimLoggedRequest[]> {
    return (await this.call<{ data: SimLoggedRequest[] }>('GET', `/_sim/requests?since_seq=${sinceSeq}`))
      .data;
  }

  /** Requests logged after `seq` whose path starts with `prefix` (the API's, by default). */
  async requestsSince(seq: number, prefix = '/v1/'): Promise<SimLoggedRequest[]> {
    return (await this.requests(seq)).filter((r) => r.path.startsWith(prefix));
  }

  /** The sequence number of the last logged request (0 when none). */
  async lastSeq(): Promise<number> {
    return (await this.requests()).reduce((max, r) => Math.max(max, r.seq), 0);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
