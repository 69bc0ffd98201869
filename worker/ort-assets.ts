/**
 * onnxruntime-web's runtime (the SIMD + threads build transformers.js picks, which also carries
 * WebGPU), emitted by the build as hashed assets on the app's own origin: transformers.js would
 * otherwise fetch them from jsDelivr. The extension build, which runs on use-lite only, replaces
 * this module with one exporting `undefined` (scripts/extension-build.ts).
 */
import mjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import wasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';

export const ORT_WASM_PATHS: { mjs: string; wasm: string } | undefined = { mjs, wasm };
