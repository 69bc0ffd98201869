/**
 * Where the memory worker finds its runtimes, in the Vite build of this repository (the app, the
 * e2e harness, the extension): onnxruntime-web's runtime (the SIMD + threads build transformers.js
 * picks, which also carries WebGPU) emitted by Vite as hashed assets on the app's own origin, and
 * TF.js's WASM for use-lite in `public/wasm/tfjs/` (scripts/copy-model-assets.mjs).
 *
 * The prebuilt worker of the package (scripts/build-worker.mjs) replaces this module with
 * ./runtime-assets.prebuilt.ts, which finds the same files beside the worker file. The
 * extension build, which runs on use-lite only, replaces it with one without onnxruntime.
 */
import mjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import wasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';

export interface RuntimeAssets {
  /** onnxruntime-web's glue and WASM (absolute URLs); undefined where MiniLM is not bundled. */
  ort: { mjs: string; wasm: string } | undefined;
  /** TF.js's WASM for use-lite: a folder URL, or one URL per file name. */
  tfjsWasm: string | Record<string, string>;
}

// Not a literal `new URL('…', import.meta.url)`: Vite would try to resolve a folder as an asset.
const here = (path: string): string => new URL(path, import.meta.url).href;

export const RUNTIME_ASSETS: RuntimeAssets = {
  ort: { mjs: here(mjs), wasm: here(wasm) },
  tfjsWasm: here('../wasm/tfjs/'),
};
