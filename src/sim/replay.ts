/**
 * `sim --replay DIR`: serves recorded answers (probe's, or a folder a user assembled) so `run` can be
 * watched against exactly what a service said. A request is answered by the first recorded answer
 * (in file-name order) with the same method, path and query; failing that, the same method and
 * path whatever the query, unless the request follows a page pointer that answer gave out (a
 * token found in the answer), which would serve the same page forever. Anything else
 * is a 404 naming the request. The recordings are plain data: reading the folder is the caller's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { send } from './http.ts';

export interface ReplayAnswer {
  method: string;
  /** Path with its query, as recorded. */
  path: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface RunningReplay {
  url: string;
  /** Requests served, and which recorded answer (its index) served each; -1 for a 404. */
  served: { method: string; path: string; answer: number }[];
  close(): Promise<void>;
}

/** Headers the server sets itself: a recorded copy would contradict the body sent. */
const OWN_HEADERS =
  /^(content-length|content-type|transfer-encoding|connection|keep-alive|date|content-encoding)$/i;

function sortedQuery(search: URLSearchParams): string {
  return [...search.entries()]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&');
}

/** The index of the answer for `method` and `target` (path and query), or -1. */
export function matchAnswer(answers: readonly ReplayAnswer[], method: string, target: string): number {
  const url = new URL(target, 'http://replay.invalid');
  const query = sortedQuery(url.searchParams);
  const recorded = answers.map((a) => new URL(a.path, 'http://replay.invalid'));
  const exact = answers.findIndex(
    (a, i) =>
      a.method === method &&
      recorded[i]?.pathname === url.pathname &&
      sortedQuery(recorded[i].searchParams) === query,
  );
  if (exact >= 0) return exact;
  return answers.findIndex((a, i) => {
    const at = recorded[i];
    if (a.method !== method || at?.pathname !== url.pathname) return false;
    const text = `${JSON.stringify(a.body)}${Object.values(a.headers).join(' ')}`;
    // A page pointer: a parameter the recorded request did not send, holding a token (16+
    // characters) the answer gave out. Filters (an ASIN, a date) are not pointers.
    return ![...url.searchParams.entries()].some(
      ([name, value]) => !at.searchParams.has(name) && value.length >= 16 && text.includes(value),
    );
  });
}

export async function startReplay(
  answers: readonly ReplayAnswer[],
  options: { host?: string; port?: number } = {},
): Promise<RunningReplay> {
  const served: RunningReplay['served'] = [];
  const server: Server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const index = matchAnswer(answers, method, target);
    served.push({ method, path: target, answer: index });
    // The request body of a POST is not read: the recording decides the answer.
    req.resume();
    const answer = answers[index];
    if (answer === undefined) {
      send(
        res,
        404,
        {},
        JSON.stringify({
          error: { code: 'not_found', message: `no recorded answer for ${method} ${target}` },
        }),
      );
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(answer.headers).filter(([name]) => !OWN_HEADERS.test(name)),
    );
    const type = answer.headers['content-type'] ?? 'application/json; charset=utf-8';
    send(res, answer.status, headers, answer.body === null ? '' : JSON.stringify(answer.body), type);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
