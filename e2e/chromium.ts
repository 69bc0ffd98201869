// Debian's Chromium, as the browser tests and the browser benchmark launch it. Playwright's own
// browser download is never used; the flags keep Chromium off the network it cannot reach here.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
