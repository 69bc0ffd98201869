import { fileURLToPath } from 'node:url';

// webpack 5 bundles houkai-web's prebuilt worker from `new Worker(new URL(…))` and emits the WASM
// it names with `new URL('./…', import.meta.url)`; nothing else to configure.
export default {
  mode: 'production',
  entry: './src/main.js',
  output: { path: fileURLToPath(new URL('./site', import.meta.url)), filename: 'main.js', publicPath: 'auto' },
  performance: { hints: false },
};
