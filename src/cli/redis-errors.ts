/**
 * Says why Redis could not be reached as what it is: refused (nothing listens there), a name that
 * does not resolve, a timeout, a refused password. "No answer" for all of them sends people to
 * the wrong fix.
 */

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Node tries every address of "localhost" (::1, 127.0.0.1) and reports them together.
  const inner = (error as { errors?: unknown }).errors;
  return Array.isArray(inner) ? codeOf(inner[0]) : undefined;
}

/** The reason part of "cannot reach Redis at URL: REASON". */
export function describeRedisError(error: unknown, url: string): string {
  let host = '(unparseable URL)';
  try {
    const parsed = new URL(url);
    host = `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {}
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${host} (nothing listens on that port)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `the host name does not resolve (DNS ${code} for ${host.replace(/:\d+$/, '')})`;
    case 'ETIMEDOUT':
      return `connecting to ${host} timed out (a firewall, or the wrong host?)`;
    case 'CONNECT_TIMEOUT':
      return `timed out: no answer from ${host} (${message}; a firewall, the wrong host, or not a Redis?)`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `${host} closed the connection (${code}; TLS needed, or not a Redis?)`;
    default:
      if (/NOAUTH|WRONGPASS|invalid password/i.test(message))
        return `Redis refused the password (${message})`;
      return message;
  }
}

/** A connect attempt that got no answer at all within the deadline. */
export class RedisConnectTimeout extends Error {
  override readonly name = 'RedisConnectTimeout';
  readonly code = 'CONNECT_TIMEOUT';
}
