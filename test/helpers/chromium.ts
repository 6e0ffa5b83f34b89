/**
 * Debian's chromium, as the browser tests and `npm run screenshots` drive it through playwright-core
 * (never a browser download). Without the background-networking flags chromium keeps dialling
 * Google's hosts, which this machine's closed network refuses.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
