import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { VitePWA } from 'vite-plugin-pwa';
import type { Plugin } from 'vite';
import { extensionConfig } from './scripts/extension-build.ts';
import { hnswlibWithoutEval } from './scripts/hnswlib-no-eval.mjs';
import { nodeOnly } from './scripts/node-only.mjs';
import { inputsFingerprint, outDirFor, writeStamp } from './scripts/build-inputs.mjs';
import { DEV_HEADERS, cspValue, headersFor } from './scripts/hosting/headers.mjs';

/**
 * The built pages carry the Content-Security-Policy of scripts/hosting/headers.mjs as a `<meta>`
 * too (less what a meta tag cannot carry), so a host that sends no headers still enforces it.
 * Build only: the dev server's client needs inline code.
 */
function cspMeta(): Plugin {
  return {
    name: 'houkai-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: cspValue({ meta: true }) }, injectTo: 'head-prepend' },
    ],
  };
}

/** Leaves the inputs' fingerprint beside the build, so `npm start` rebuilds only when they change (scripts/build-inputs.mjs). */
function buildStamp(mode: string, outDir: string): Plugin {
  let fingerprint = { fingerprint: '', files: 0 };
  return {
    name: 'houkai-build-stamp',
    apply: 'build',
    buildStart() {
      fingerprint = inputsFingerprint(mode);
    },
    closeBundle() {
      writeStamp(outDir, { mode, ...fingerprint, builtAt: new Date().toISOString() });
    },
  };
}

// The app (index.html) is what `npm start` builds into dist/app and serves (scripts/start.mjs).
// `--mode e2e` adds the test harness pages under e2e/ and builds into dist/e2e, so the browser
// tests run against a production build with its service worker, and `npm start` keeps its own.
// `--mode extension` builds the MV3 extension into dist/extension (scripts/extension-build.ts).
export default defineConfig(({ mode }) => mode === 'extension' ? extensionConfig() : ({
  // Worker entry scripts apart (workers/, beside assets/), so they get their own CSP
  // (scripts/hosting/headers.mjs); hnswlib's glue without eval, so that policy needs none.
  worker: { format: 'es', plugins: () => [nodeOnly(), hnswlibWithoutEval()], rolldownOptions: { checks: { bundlerTimings: false }, output: { entryFileNames: 'workers/[name]-[hash].js' } } },
  // `npm run dev`: isolated like the built app (COOP + COEP), without the CSP Vite's client breaks.
  server: { headers: { ...DEV_HEADERS } },
  preview: { headers: headersFor('/*') },
  build: {
    outDir: outDirFor(mode),
    target: 'es2022',
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      // The plugin-timing report (the PWA plugin's precache of the models dominates it) is not something a person can act on.
      checks: { bundlerTimings: false },
      input: {
        main: 'index.html',
        ...(mode === 'e2e' ? { harness: 'e2e/harness.html', bench: 'e2e/bench.html', contracts: 'e2e/contracts.html', move: 'e2e/move.html' } : {}),
      },
    },
  },
  optimizeDeps: { exclude: ['hnswlib-wasm'] },
  plugins: [
    nodeOnly(),
    svelte(),
    cspMeta(),
    buildStamp(mode, outDirFor(mode)),
    VitePWA({
      // 'prompt': a new version installs in the background and waits; the app shows a banner and
      // the person chooses when to reload (src/app/state/pwa.svelte.ts).
      registerType: 'prompt',
      injectRegister: false,
      manifest: {
        id: '/',
        name: 'Houkai Web',
        short_name: 'Houkai',
        description: 'Private, on-device long-term memory for AI agents',
        start_url: '/',
        scope: '/',
        theme_color: '#1d2a44',
        background_color: '#f6f4ef',
        display: 'standalone',
        icons: [
          { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        // The app shell, the worker bundle, the default model (bge-small, ~35 MB), onnxruntime's
        // WASM and the bundled use-lite model: everything the app needs to run with the network
        // off after the first visit. MiniLM (~23 MB, chosen per store) is cached on first use.
        globPatterns: [
          '**/*.{js,mjs,css,html,wasm,json,png,svg,webmanifest}',
          'models/use-lite/*',
          'models/Xenova/bge-small-en-v1.5/**/*',
        ],
        globIgnores: ['models/Xenova/all-MiniLM-L6-v2/**'],
        maximumFileSizeToCacheInBytes: 40 * 1024 * 1024,
        runtimeCaching: [
          {
            urlPattern: ({ url }) => url.pathname.startsWith('/models/Xenova/'),
            handler: 'CacheFirst',
            options: { cacheName: 'houkai-models' },
          },
        ],
        // A first install takes the open page at once; an update waits for the banner's Reload
        // (the plugin's prompt flow sends SKIP_WAITING then).
        clientsClaim: true,
        skipWaiting: false,
        navigateFallbackDenylist: [/^\/models\//, /^\/wasm\//],
      },
    }),
  ],
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    setupFiles: ['test/setup.ts'],
  },
}));
