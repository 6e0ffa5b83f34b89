/**
 * Where plain (unencrypted) connections are tolerated: only to this machine, unless a setting
 * opts out explicitly with `allowInsecure: true`, and then `run` and `validate` say so.
 */
import { isLoopbackHost } from '../util/key-url.ts';

/** The loopback test lives with the outbound-URL policy (util/key-url.ts); re-exported for the config's checks. */
export { isLoopbackHost };

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
