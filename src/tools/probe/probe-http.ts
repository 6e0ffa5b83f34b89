/**
 * One request of a probe: the key sent only to the base URL (no redirect followed), the answer kept
 * with its headers; a service that cannot be the API (unreachable, refusing the key, answering
 * something that is not JSON) is a ProbeError that stops the probe at that request.
 */
import type { RecordedAnswer } from './probe-analyse.ts';
import type { ProbedEndpoint } from './probe-plan.ts';

export type ProbeFailureKind = 'unreachable' | 'unauthorized' | 'not_json';

/** Why the probe stopped: one line for the user, the decision in `kind` and `status`. */
export class ProbeError extends Error {
  constructor(
    readonly kind: ProbeFailureKind,
    message: string,
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProbeError';
  }
}

export async function request(
  options: { baseUrl: string; apiKey: string; timeoutMs?: number | undefined },
  endpoint: ProbedEndpoint,
  path: string,
): Promise<RecordedAnswer> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      // A redirect is a wrong base URL, not a place to send the key again.
      redirect: 'error',
    });
  } catch (error) {
    const reason =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new ProbeError('unreachable', `cannot reach ${options.baseUrl}: ${reason}`, undefined, {
      cause: error,
    });
  }
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const where = `GET ${path.split('?')[0]}`;
  if (response.status === 401)
    throw new ProbeError(
      'unauthorized',
      `the service refused the key (401 on ${where}): check the API key`,
      401,
    );
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch (error) {
    const what = /^\s*</.test(text) ? 'HTML' : 'something that is not JSON';
    throw new ProbeError(
      'not_json',
      `${options.baseUrl} answered ${where} with ${what} (status ${response.status}): is this the API's base URL?`,
      response.status,
      { cause: error },
    );
  }
  return { endpoint, method: 'GET', path, status: response.status, headers, body };
}
