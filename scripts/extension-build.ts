/**
 * The build of the MV3 extension (`vite build --mode extension`, see vite.config.ts).
 */
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Plugin, type UserConfig } from 'vite';

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
        },
      });
    },
  };
}

/**
 * Extension pages (and their workers) may not evaluate strings as code: MV3 allows
 * `'wasm-unsafe-eval'` but never `'unsafe-eval'`. hnswlib-wasm's Emscripten glue builds two kinds
 * of functions from source text at run time (Embind's invokers for C++ functions and methods, and
 * its emval method callers): each is replaced here by a closure doing the same work (what
 * Emscripten's DYNAMIC_EXECUTION=0 would generate), so the index runs under the extension's CSP.
 * The build fails if the glue no longer has these exact lines.
 */
const EMBIND_INVOKER = '      return newFunc(Function, args1).apply(null, args2);';
const EMBIND_INVOKER_CLOSURE = `      var houkaiArity = argCount - 2;
      var houkaiName = humanName;
      return function () {
        if (arguments.length !== houkaiArity) {
          throwBindingError('function ' + houkaiName + ' called with ' + arguments.length + ' arguments, expected ' + houkaiArity + ' args!');
        }
        var destructors = needsDestructorStack ? [] : null;
        var wired = [];
        if (isClassMethodFunc) wired.push(argTypes[1].toWireType(destructors, this));
        for (var i = 0; i < houkaiArity; ++i) wired.push(argTypes[i + 2].toWireType(destructors, arguments[i]));
        var rv = cppInvokerFunc.apply(null, [cppTargetFunc].concat(wired));
        if (needsDestructorStack) {
          runDestructors(destructors);
        } else {
          for (var j = isClassMethodFunc ? 1 : 2; j < argTypes.length; ++j) {
            if (argTypes[j].destructorFunction !== null) argTypes[j].destructorFunction(wired[j === 1 ? 0 : (isClassMethodFunc ? 1 : 0) + j - 2]);
          }
        }
        if (returns) return argTypes[0].fromWireType(rv);
      };`;
const EMVAL_CALLER = '      var invokerFunction = newFunc(Function, params).apply(null, args);';
const EMVAL_CALLER_CLOSURE = `      var invokerFunction = function (handle, name, destructors, argsPointer) {
        var values = [];
        var offset = 0;
        for (var i = 0; i < argCount - 1; ++i) {
          values.push(types[i + 1].readValueFromPointer(argsPointer + offset));
          offset += types[i + 1]['argPackAdvance'];
        }
        var rv = handle[name].apply(handle, values);
        for (var k = 0; k < argCount - 1; ++k) {
          if (types[k + 1]['deleteObject']) types[k + 1].deleteObject(values[k]);
        }
        if (!retType.isVoid) return retType.toWireType(destructors, rv);
      };`;

/** The hnswlib-wasm glue without code built from strings. @throws when the glue is not the expected one. */
export function removeHnswlibEval(code: string): string {
  for (const line of [EMBIND_INVOKER, EMVAL_CALLER]) {
    if (code.split(line).length !== 2) throw new Error(`hnswlib-wasm's glue changed: expected exactly one line ${JSON.stringify(line.trim())}`);
  }
  return code.replace(EMBIND_INVOKER, () => EMBIND_INVOKER_CLOSURE).replace(EMVAL_CALLER, () => EMVAL_CALLER_CLOSURE);
}

function hnswlibWithoutEval(): Plugin {
  return {
    name: 'houkai-extension-hnswlib-without-eval',
    transform(code, id) {
      if (!/hnswlib-wasm\/dist\/hnswlib-[0-9a-f]+\.js$/.test(id.split('?')[0]!)) return null;
      return { code: removeHnswlibEval(code), map: null };
    },
  };
}

/**
 * The extension runs on the bundled use-lite model only: MiniLM's adapter is replaced by one that
 * reports MODEL_UNAVAILABLE, which leaves transformers.js and onnxruntime's 27 MB of WASM out
 * (and `embedder: 'auto'` falls back to use-lite, as it does whenever MiniLM cannot load).
 */
function withoutMiniLM(): Plugin {
  // A plain path (a '\0' id would name the chunk '_…', a prefix Chrome reserves in extensions).
  const id = here('src/extension/no-minilm.virtual.ts');
  const noOrt = here('src/extension/no-ort-assets.virtual.ts');
  return {
    name: 'houkai-extension-no-minilm',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source.endsWith('/ort-assets.ts') && importer?.endsWith('/worker/origin-assets.ts')) return noOrt;
      return source.endsWith('/embedder-transformers.ts') && importer?.endsWith('/src/local.ts') ? id : null;
    },
    load(loading) {
      if (loading === noOrt) return 'export const ORT_WASM_PATHS = undefined;';
      if (loading !== id) return null;
      return [
        `import { MemoryError } from ${JSON.stringify(here('src/core/errors.ts'))};`,
        'export async function createTransformersEmbedder() {',
        "  throw new MemoryError('MODEL_UNAVAILABLE', 'MiniLM is not bundled in this extension; it runs on the bundled use-lite model', { model: 'minilm' });",
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
    worker: { format: 'es', plugins: () => [withoutMiniLM(), hnswlibWithoutEval()] },
    build: {
      outDir: EXTENSION_OUT,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 4096,
      modulePreload: { polyfill: false },
      rollupOptions: {
        input: {
          popup: here('src/extension/popup.html'),
          offscreen: here('src/extension/offscreen.html'),
          background: here('src/extension/background.ts'),
        },
        output: { entryFileNames: (chunk) => (chunk.name === 'background' ? 'background.js' : 'assets/[name]-[hash].js') },
      },
    },
    plugins: [extensionFiles()],
  };
}

