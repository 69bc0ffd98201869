import { defineConfig } from 'vite';

// Vite bundles houkai-web's prebuilt worker (and copies its WASM) from `new Worker(new URL(…))`;
// the worker is an ES module.
export default defineConfig({ worker: { format: 'es' } });
