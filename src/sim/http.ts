import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorDetail } from './errors.ts';

const MAX_BODY_BYTES = 1024 * 1024;

/** The whole request body as text, or undefined when it exceeds 1 MiB (the rest is drained). */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size <= MAX_BODY_BYTES) chunks.push(buffer);
  }
  return size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}

export function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
  contentType = 'application/json; charset=utf-8',
): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, {
    ...headers,
    'Content-Type': contentType,
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

export function errorBody(
  code: string,
  message: string,
  requestId?: string,
  details?: readonly ErrorDetail[],
) {
  return {
    error: {
      code,
      message,
      ...(requestId === undefined ? {} : { request_id: requestId }),
      ...(details === undefined ? {} : { details }),
    },
  };
}

const REASONS: Record<number, string> = {
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
};

/** What a reverse proxy in front of the service sends when the service is down: not JSON. */
export function proxyPage(status: number): string {
  const title = `${status} ${REASONS[status] ?? 'Error'}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}
