import { Agent, request } from 'undici';

/** Where a running simulator's control endpoint is, and the token it wants. */
export interface SimControlTarget {
  url: string;
  adminToken: string;
}

/**
 * A client of the simulator's control endpoint (`/_sim/…`: never counted, never logged), for the
 * test suites and benchmarks that drive a simulator: one place that sends the admin token, reads
 * the answer and turns a refusal into an error naming the call.
 */
export class SimControlClient {
  private readonly agent: Agent;

  constructor(
    private readonly target: SimControlTarget,
    options: { connections?: number } = {},
  ) {
    this.agent = new Agent(options.connections === undefined ? {} : { connections: options.connections });
  }

  /** The parsed JSON answer (undefined for an empty one); an error for any status from 300. */
  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.target.url}${path}`, {
      method,
      dispatcher: this.agent,
      headers: { 'x-sim-admin-token': this.target.adminToken, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) {
      throw new Error(`${method} ${path} → ${res.statusCode}: ${text.slice(0, 300)}`);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
