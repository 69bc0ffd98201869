import { defineConfig } from 'vite';

export default defineConfig({
  // Vite bundles houkai-web's prebuilt worker (and copies its WASM) from `new Worker(new URL(…))`.
  worker: { format: 'es' },
  // The dev server's pre-bundling would move the package away from its worker file.
  optimizeDeps: { exclude: ['houkai-web'] },
});
