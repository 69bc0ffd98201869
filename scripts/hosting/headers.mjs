/**
 * The app's response headers: ONE table, read by everything that serves or describes the built
 * app — the `npm start` server (scripts/serve.mjs), the dev server's isolation headers
 * (vite.config.ts), the CSP `<meta>` fallback written into index.html at build time, the
 * generated hosting configs (`npm run hosting` → docs/hosting/_headers and nginx.conf) and the
 * tests that check them (test/hosting.test.ts, e2e/quickstart.spec.ts).
 *
 * Plain JavaScript so `node scripts/serve.mjs` runs it without a compiler; types in headers.d.mts.
 */

/**
 * The Content-Security-Policy of the app's pages, directive by directive.
 * - `'wasm-unsafe-eval'`: WebAssembly (HNSW, TF.js, onnxruntime) compiles; no JavaScript `eval`.
 * - `style-src 'self'`: no inline `<style>` and no `style="…"` in markup. Svelte's `style:`
 *   directives set `element.style` through the CSSOM, which CSP does not govern (checked by the
 *   browser tests, which fail on any CSP violation).
 * - `connect-src 'self'`: the app talks to its own origin only. Its models load from the origin's
 *   /models/ (provisioned by `npm run models`, precached by the service worker); the app never
 *   downloads from the Hugging Face hub (a library user may, with `allowRemoteModels`, on a page
 *   whose policy allows it).
 * - `frame-ancestors 'none'` (with `X-Frame-Options: DENY` for older browsers): never framed.
 */
export const CSP = Object.freeze({
  'default-src': ["'self'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  'worker-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'manifest-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
});

/** Directives a `<meta>` CSP cannot carry (browsers ignore them there, with a console warning). */
const HEADER_ONLY = new Set(['frame-ancestors', 'report-uri', 'report-to', 'sandbox']);

/**
 * The policy as a header value, for:
 * - `document` (default): the app's pages;
 * - `meta`: the `<meta>` copy in the built pages (less what a meta tag cannot carry);
 * - `service-worker`: the service worker script (no framing directive: workers are not framed);
 * - `worker`: the memory worker's scripts: the page's policy (no `'unsafe-eval'`, no `blob:`)
 *   without the framing directive, plus the sync servers below. hnswlib-wasm's Emscripten glue is
 *   rewritten at build time without `new Function` (scripts/hnswlib-no-eval.mjs), and
 *   transformers.js imports onnxruntime's glue from its URL on this origin instead of a `blob:`
 *   copy (src/adapters/embedder-transformers.ts), so the worker evaluates no strings; where the
 *   page is cross-origin isolated, onnxruntime's threads are workers started from that same URL.
 */

/**
 * The CouchDB servers the app's worker may sync with, besides its own origin (a CouchDB proxied
 * under the app's origin needs nothing): origins listed, space-separated, in the environment
 * variable `HOUKAI_SYNC_ORIGINS` of whatever serves or generates the headers (`npm start`,
 * `npm run hosting`). Only the worker's `connect-src` gains them — the pages still reach nothing
 * but their origin — and the worker connects to them only when the person turns sync on.
 * @throws Error for an entry that is not an http(s) origin.
 */
export function syncOrigins(value = globalThis.process?.env?.HOUKAI_SYNC_ORIGINS ?? '') {
  return value
    .split(/\s+/)
    .filter(Boolean)
    .map((entry) => {
      let url;
      try {
        url = new URL(entry);
      } catch {
        throw new Error(`HOUKAI_SYNC_ORIGINS: ${JSON.stringify(entry)} is not an origin (https://host[:port])`);
      }
      if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== entry.replace(/\/$/, '')) {
        throw new Error(`HOUKAI_SYNC_ORIGINS: ${JSON.stringify(entry)} must be an http(s) origin with no path (https://host[:port])`);
      }
      return url.origin;
    });
}

export function cspValue({ for: kind = 'document', meta = false } = {}) {
  const target = meta ? 'meta' : kind;
  return Object.entries(CSP)
    .filter(([name]) => (target === 'document' ? true : target === 'meta' ? !HEADER_ONLY.has(name) : name !== 'frame-ancestors'))
    .map(([name, sources]) => [name, ...sources, ...(target === 'worker' && name === 'connect-src' ? syncOrigins() : [])].join(' '))
    .join('; ');
}

/**
 * Cross-origin isolation (`crossOriginIsolated`, SharedArrayBuffer for multi-threaded WASM):
 * the page and its workers opt in with COOP + COEP; every response says it may be embedded
 * only by its own origin (CORP), which is all `require-corp` asks of same-origin assets.
 */
export const ISOLATION = Object.freeze({
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
});

/**
 * Where the build puts worker entry scripts (vite.config.ts), so they get their own policy: a
 * folder beside assets/ (the worker finds the model files at `../models/`, as from assets/).
 */
export const WORKER_DIR = '/workers/';

/**
 * The rules, in the `_headers` file's terms: a path pattern (`*` matches anything, `/` included)
 * and the headers every matching response gets. A response gets the headers of every rule it
 * matches; no two rules that can match one path set the same header (static hosts would join the
 * values into one header, and two CSPs are both enforced). A CSP matters only on documents and
 * worker scripts, so only they get one.
 */
export const RULES = Object.freeze([
  {
    path: '/*',
    why: 'every response: isolation, no framing, no sniffing, no referrer',
    headers: {
      ...ISOLATION,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  },
  {
    path: '/',
    why: 'the app page: its policy, and always revalidated so a deploy is seen at once',
    headers: { 'Content-Security-Policy': cspValue(), 'Cache-Control': 'no-cache' },
  },
  {
    path: '/index.html',
    why: 'the app page by name',
    headers: { 'Content-Security-Policy': cspValue(), 'Cache-Control': 'no-cache' },
  },
  {
    path: '/e2e/*',
    why: 'the test pages of the e2e build (npm run build:app -- --mode e2e)',
    headers: { 'Content-Security-Policy': cspValue() },
  },
  {
    path: '/sw.js',
    why: 'the service worker: its policy, and always revalidated so updates are found',
    headers: { 'Content-Security-Policy': cspValue({ for: 'service-worker' }), 'Cache-Control': 'no-cache' },
  },
  {
    path: '/assets/*',
    why: 'content-hashed bundles: cached for good',
    headers: { 'Cache-Control': 'public, max-age=31536000, immutable' },
  },
  {
    path: `${WORKER_DIR}*`,
    why: 'the memory worker (content-hashed): its own policy (see cspValue), cached for good',
    headers: { 'Content-Security-Policy': cspValue({ for: 'worker' }), 'Cache-Control': 'public, max-age=31536000, immutable' },
  },
]);

/** Whether a rule's path pattern matches a URL path. */
export function matches(pattern, pathname) {
  const source = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${source}$`).test(pathname);
}

/** Every header a response for `pathname` gets from the table. */
export function headersFor(pathname) {
  const out = {};
  for (const rule of RULES) if (matches(rule.path, pathname)) Object.assign(out, rule.headers);
  return out;
}

/** What the dev server sends (`npm run dev`): isolation only — Vite's dev client needs inline code a CSP would refuse. */
export const DEV_HEADERS = ISOLATION;

const GENERATED = 'Generated by `npm run hosting` from scripts/hosting/headers.mjs: edit the table there, not this file.';

/** The `_headers` file static hosts read from the site's root (Netlify, Cloudflare Pages). */
export function renderHeadersFile() {
  const lines = [`# ${GENERATED}`, ''];
  for (const rule of RULES) {
    lines.push(`# ${rule.why}`, rule.path);
    for (const [name, value] of Object.entries(rule.headers)) lines.push(`  ${name}: ${value}`);
    lines.push('');
  }
  return lines.join('\n');
}

/**
 * An nginx `server { … }` body. nginx drops every inherited `add_header` in a block that has
 * one of its own, so each location repeats the full set it needs.
 */
export function renderNginx() {
  const header = (name, value) => `    add_header ${name} "${value.replaceAll('"', '\\"')}" always;`;
  const location = (match, pathname, extra = []) => [
    `  location ${match} {`,
    ...extra,
    ...Object.entries(headersFor(pathname)).map(([name, value]) => header(name, value)),
    '  }',
  ];
  return [
    `# ${GENERATED}`,
    '# Inside a server { … } block whose root is the built app (dist/app). nginx needs',
    '# `application/wasm` for .wasm and `application/manifest+json` for .webmanifest in its mime.types.',
    '',
    ...location('/', '/index.html', ['    try_files $uri $uri/ /index.html;']),
    '',
    ...location('/assets/', '/assets/x'),
    '',
    ...location(WORKER_DIR, `${WORKER_DIR}x`),
    '',
    ...location('= /sw.js', '/sw.js'),
    '',
  ].join('\n');
}
