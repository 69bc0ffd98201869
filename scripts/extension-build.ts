/**
 * The build of the MV3 extension (`vite build --mode extension`, see vite.config.ts).
 */
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Plugin, type UserConfig } from 'vite';
// Extension pages (and their workers) may not evaluate strings as code (scripts/hnswlib-no-eval.mjs).
import { hnswlibWithoutEval } from './hnswlib-no-eval.mjs';
import { nodeOnly } from './node-only.mjs';

const here = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));
const EXTENSION_OUT = here('dist/extension');

/**
 * The MV3 extension's static parts: manifest.json (its version from package.json) and the
 * content script, which must be one classic script (content scripts cannot be modules), so it
 * gets a build of its own as an IIFE once the main bundle is written.
 */
function extensionFiles(): Plugin {
  return {
    name: 'houkai-extension-files',
    apply: 'build',
    generateBundle() {
      const manifest = JSON.parse(readFileSync(here('src/extension/manifest.json'), 'utf8')) as Record<string, unknown>;
      manifest.version = (JSON.parse(readFileSync(here('package.json'), 'utf8')) as { version: string }).version;
      this.emitFile({ type: 'asset', fileName: 'manifest.json', source: `${JSON.stringify(manifest, null, 2)}\n` });
    },
    async closeBundle() {
      // public/ also holds the transformers.js weights (npm run models, ~57 MB) for the app; the
      // extension runs on use-lite and never loads them.
      rmSync(`${EXTENSION_OUT}/models/Xenova`, { recursive: true, force: true });
      await build({
        configFile: false,
        logLevel: 'warn',
        publicDir: false,
        build: {
          outDir: EXTENSION_OUT,
          emptyOutDir: false,
          target: 'es2022',
          lib: { entry: here('src/extension/content.ts'), formats: ['iife'], name: 'houkaiContent', fileName: () => 'content.js' },
          rolldownOptions: { checks: { bundlerTimings: false } },
        },
      });
    },
  };
}

/**
 * The extension runs on the bundled use-lite model only: the transformers.js adapters (the embedder
 * and the cross-encoder) are replaced by ones that report MODEL_UNAVAILABLE, which leaves transformers.js and onnxruntime's 27 MB of WASM out
 * (and `embedder: 'auto'` falls back to use-lite without a warning: `bundled: false` says the
 * build left them out on purpose).
 */
function withoutMiniLM(): Plugin {
  // A plain path (a '\0' id would name the chunk '_…', a prefix Chrome reserves in extensions).
  const id = here('src/extension/no-minilm.virtual.ts');
  const noOrt = here('src/extension/no-ort-assets.virtual.ts');
  const noCrossEncoder = here('src/extension/no-cross-encoder.virtual.ts');
  return {
    name: 'houkai-extension-no-minilm',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source.endsWith('/runtime-assets.ts') && importer?.endsWith('/worker/origin-assets.ts')) return noOrt;
      if (source.endsWith('/reranker-transformers.ts') && importer?.endsWith('/src/local.ts')) return noCrossEncoder;
      return source.endsWith('/embedder-transformers.ts') && importer?.endsWith('/src/local.ts') ? id : null;
    },
    load(loading) {
      if (loading === noOrt) return `const folder = '../wasm/tfjs/'; export const RUNTIME_ASSETS = { ort: undefined, tfjsWasm: new URL(folder, import.meta.url).href };`;
      if (loading === noCrossEncoder) {
        // A host reranker still works; `rerank: { model }` is refused at open with this error.
        return [
          `import { MemoryError } from ${JSON.stringify(here('src/core/errors.ts'))};`,
          'export function crossEncoderLoader() {',
          "  throw new MemoryError('MODEL_UNAVAILABLE', 'cross-encoders are not bundled in this extension (transformers.js is left out): pass rerank.reranker instead', { model: 'transformers', bundled: false });",
          '}',
        ].join('\n');
      }
      if (loading !== id) return null;
      return [
        `import { MemoryError } from ${JSON.stringify(here('src/core/errors.ts'))};`,
        'export async function createTransformersEmbedder() {',
        "  throw new MemoryError('MODEL_UNAVAILABLE', 'bge-small and MiniLM are not bundled in this extension; it runs on the bundled use-lite model', { model: 'transformers', bundled: false });",
        '}',
      ].join('\n');
    },
  };
}

/**
 * `vite build --mode extension` → dist/extension/: the popup, the offscreen document with the
 * memory worker, the background service worker, the content script, and public/ (icons, the
 * use-lite model and the TF.js WASM, copied there by scripts/copy-model-assets.mjs): nothing is
 * fetched from the network.
 */
export function extensionConfig(): UserConfig {
  return {
    root: here('src/extension'),
    base: './',
    publicDir: here('public'),
    // The plugin-timing report (printed when a slow or busy machine makes a plugin's share large) is not something a person can act on.
    worker: { format: 'es', plugins: () => [nodeOnly(), withoutMiniLM(), hnswlibWithoutEval()], rolldownOptions: { checks: { bundlerTimings: false } } },
    build: {
      outDir: EXTENSION_OUT,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 4096,
      modulePreload: { polyfill: false },
      rolldownOptions: {
        checks: { bundlerTimings: false },
        input: {
          popup: here('src/extension/popup.html'),
          offscreen: here('src/extension/offscreen.html'),
          background: here('src/extension/background.ts'),
        },
        output: { entryFileNames: (chunk) => (chunk.name === 'background' ? 'background.js' : 'assets/[name]-[hash].js') },
      },
    },
    plugins: [nodeOnly(), extensionFiles()],
  };
}

