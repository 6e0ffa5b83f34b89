/**
 * The one outbound-URL policy for everything that sends the API key (the client behind `run`,
 * `validate --online`, `init`, `probe`): an http(s) URL without credentials, query or fragment, and
 * plain http only to this machine unless the workspace opts out with `allowInsecure: true`.
 * Judged on the URL as written, never on what a name resolves to.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** `localhost`, 127.0.0.0/8 and ::1 (bracketed or not, IPv4-mapped forms included). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

export type KeyUrlVerdict =
  | { ok: true; origin: string; basePath: string; plainOffLoopback: boolean }
  | { ok: false; message: string; hint: string };

export const INSECURE_HINT =
  'the API key would travel unencrypted: use https, or set allowInsecure: true on this workspace for a network you trust';

/** Whether the API key may be sent to `text`; the message never repeats the whole URL (it may hold a secret). */
export function checkKeyUrl(text: string, options: { allowInsecure?: boolean } = {}): KeyUrlVerdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      ok: false,
      message: 'expected a base URL such as https://api.example.com, got text that is not a URL',
      hint: 'give the full URL with its https:// scheme',
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      message: `expected an https:// URL, got a URL starting with "${url.protocol}//"`,
      hint: 'the API is spoken over https (http only to this machine)',
    };
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return {
      ok: false,
      message: 'expected a base URL without credentials, query or fragment',
      hint: 'the key is sent as a Bearer header: keep only scheme, host, port and path',
    };
  }
  const plainOffLoopback = url.protocol === 'http:' && !isLoopbackHost(url.hostname);
  if (plainOffLoopback && options.allowInsecure !== true) {
    return {
      ok: false,
      message: `expected an https:// URL for a host off this machine, got plain http:// to "${url.hostname}"`,
      hint: INSECURE_HINT,
    };
  }
  return { ok: true, origin: url.origin, basePath: url.pathname.replace(/\/+$/, ''), plainOffLoopback };
}

/** Refused by the policy: thrown where a URL is about to receive the key. */
export class KeyUrlError extends Error {
  override readonly name = 'KeyUrlError';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** The origin and base path of `text`, or a KeyUrlError saying why the key may not go there. */
export function keyUrlOrThrow(
  text: string,
  options: { allowInsecure?: boolean } = {},
): { origin: string; basePath: string } {
  const verdict = checkKeyUrl(text, options);
  if (!verdict.ok) throw new KeyUrlError(`${verdict.message} (${verdict.hint})`, verdict.hint);
  return { origin: verdict.origin, basePath: verdict.basePath };
}
