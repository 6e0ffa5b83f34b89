/**
 * Where plain (unencrypted) connections are tolerated: only to this machine, unless a setting
 * opts out explicitly with `allowInsecure: true`, and then `run` and `validate` say so.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * `localhost`, 127.0.0.0/8 and ::1 (bracketed or not, IPv4-mapped forms included). Judged on the
 * name as written, never on what it resolves to: a name that resolves to 127.0.0.1 here may not
 * elsewhere, and DNS is not to be trusted with that decision.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** True when `text` is a URL with this scheme to a host off this machine. */
export function isPlainOffLoopback(text: string, scheme: 'http' | 'smtp'): boolean {
  const url = urlOf(text);
  return url !== undefined && url.protocol === `${scheme}:` && !isLoopbackHost(url.hostname);
}

/** The host of a URL, for messages (never the whole URL: it may carry a credential). */
export function hostName(text: string): string {
  return urlOf(text)?.hostname ?? '(not a URL)';
}
