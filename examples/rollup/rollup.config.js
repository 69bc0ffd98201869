import { nodeResolve } from '@rollup/plugin-node-resolve';

// Rollup leaves `new URL(…, import.meta.url)` alone: the page starts the worker that
// `npx houkai-web worker site/houkai` copied (workerUrl in src/main.js).
export default {
  input: 'src/main.js',
  output: { file: 'site/main.js', format: 'es', inlineDynamicImports: true },
  plugins: [nodeResolve({ browser: true })],
};
