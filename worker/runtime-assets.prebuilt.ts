/**
 * The runtimes of the prebuilt worker (`houkai-web/worker.js`, built by scripts/build-worker.mjs):
 * files that lie beside the worker file in the package, each named by a literal
 * `new URL('./…', import.meta.url)`, so a bundler that bundles the worker (Vite, webpack 5)
 * copies them with it, and a page that serves the folder as it is finds them there.
 */
import type { RuntimeAssets } from './runtime-assets.ts';

export const RUNTIME_ASSETS: RuntimeAssets = {
  ort: {
    mjs: new URL('./ort-wasm-simd-threaded.asyncify.mjs', import.meta.url).href,
    wasm: new URL('./ort-wasm-simd-threaded.asyncify.wasm', import.meta.url).href,
  },
  tfjsWasm: {
    'tfjs-backend-wasm.wasm': new URL('./tfjs-backend-wasm.wasm', import.meta.url).href,
    'tfjs-backend-wasm-simd.wasm': new URL('./tfjs-backend-wasm-simd.wasm', import.meta.url).href,
    'tfjs-backend-wasm-threaded-simd.wasm': new URL('./tfjs-backend-wasm-threaded-simd.wasm', import.meta.url).href,
  },
};
