/**
 * The response headers that make the app's pages and workers cross-origin isolated
 * (`crossOriginIsolated === true`), which onnxruntime-web needs for multi-threaded WASM
 * (SharedArrayBuffer). Every server of the app sends them: `vite` (npm start's dev server),
 * `vite preview` (the e2e tests), and any production server or static host (see README).
 *
 * Everything the app loads is same-origin, so `require-corp` costs nothing; the
 * Cross-Origin-Resource-Policy header lets a cross-origin-isolated page embed our own responses.
 */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
