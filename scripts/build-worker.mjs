#!/usr/bin/env node
/**
 * The package's prebuilt worker (`npm run build:worker`, part of `npm run build:lib`):
 * worker/memory.worker.ts bundled by esbuild into one self-contained module worker,
 * dist/worker/memory.worker.js, with the runtime files it loads beside it:
 *
 *   memory.worker.js                              the worker: store, index, both embedders, RPC host
 *   kernel-helper.worker.js                       a helper thread of the index's kernel
 *   ort-wasm-simd-threaded.asyncify.{mjs,wasm}    onnxruntime-web (MiniLM, bge-small)
 *   tfjs-backend-wasm{,-simd,-threaded-simd}.wasm TF.js (use-lite)
 *   sqlite3.wasm, sqlite3-opfs-async-proxy.js     SQLite (stores on OPFS)
 *
 * The worker names each of them with a literal `new URL('./…', import.meta.url)`
 * (worker/runtime-assets.prebuilt.ts): a bundler that bundles the worker copies them, a page that
 * serves the folder as it is finds them. It evaluates no strings: hnswlib-wasm's glue is rewritten
 * here (scripts/hnswlib-no-eval.mjs) and the build fails if anything in it still calls `eval` or
 * `new Function`, so an extension's or a strict site's CSP runs it with no step of the user's.
 * Models are not in it: `npx houkai-web models <dir>` provisions them where the page serves them.
 */
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HNSWLIB_GLUE, removeHnswlibEval } from './hnswlib-no-eval.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(join(root, 'package.json'));
/** A dependency's folder (found from its entry: some packages do not export package.json). */
function packageDir(name) {
  let dir = dirname(require.resolve(name));
  while (!dir.endsWith(`/node_modules/${name}`)) {
    if (dir === dirname(dir)) throw new Error(`build-worker: cannot find the folder of ${name}`);
    dir = dirname(dir);
  }
  return dir;
}
export const WORKER_OUT = join(root, 'dist', 'worker');

/** Redirects the runtime-asset module of the repo's Vite builds to the prebuilt one. */
const prebuiltAssets = {
  name: 'houkai-prebuilt-assets',
  setup(b) {
    b.onResolve({ filter: /\/runtime-assets\.ts$/ }, (args) => ({ path: join(args.resolveDir, 'runtime-assets.prebuilt.ts') }));
  },
};

/**
 * What only Node reaches, left out of the browser worker (the repo's Vite builds leave it out by
 * splitting it into chunks a browser never loads; one self-contained file cannot): reading models
 * from disk, a store in a folder (SQLite through better-sqlite3), and PouchDB's in-memory replica
 * (the browser's is IndexedDB). Each stub fails loudly.
 */
const NODE_ONLY = /(^|\/)(node-model-path|use-lite-node-files|node-store)\.ts$|^pouchdb-adapter-memory$/;
const nodeOnly = {
  name: 'houkai-node-only',
  setup(b) {
    b.onResolve({ filter: NODE_ONLY }, (args) => ({ path: args.path, namespace: 'houkai-node-only' }));
    b.onLoad({ filter: /.*/, namespace: 'houkai-node-only' }, (args) => ({
      contents: `const fail = () => { throw new Error(${JSON.stringify(`${args.path.split('/').pop()} runs in Node only, not in the browser worker`)}); };
export default fail; export const findLocalModelPath = fail; export const readUseLiteFiles = fail; export const openDirStore = fail; export const storeFile = fail;`,
      loader: 'js',
    }));
  },
};

/** hnswlib-wasm's glue without code built from strings. */
const hnswlibNoEval = {
  name: 'houkai-hnswlib-no-eval',
  setup(b) {
    b.onLoad({ filter: HNSWLIB_GLUE }, async (args) => ({ contents: removeHnswlibEval(await readFile(args.path, 'utf8')), loader: 'js' }));
  },
};

/**
 * onnxruntime-web's Emscripten glue (bundled by transformers.js) keeps one string evaluation:
 * emval's method-caller factory, `new Function(Object.keys(…), …)`. Its WASM inference for
 * MiniLM and bge-small never calls it (the e2e consumer pages run MiniLM under a CSP without
 * 'unsafe-eval'); a strict CSP would turn a call into an error, never into code run. It is the
 * one allowed, by its exact shape; anything else fails the build.
 */
const ORT_EMVAL_CALLER = /\(?new Function\(Object\.keys\(\w+\), ?\w+\)\)?\(\.\.\.Object\.values\(\w+\)\)/g;

/** What in the bundle would build code from a string, besides the one allowed above. */
export function stringEvaluations(code) {
  const allowed = (code.match(ORT_EMVAL_CALLER) ?? []).length;
  const rest = code.replace(ORT_EMVAL_CALLER, 'ORT_EMVAL_CALLER');
  const found = [];
  if (allowed > 1) found.push(`onnxruntime's emval caller appears ${allowed} times (expected once)`);
  for (const match of rest.matchAll(/(^|[^.\w$])eval\s*\(|new\s+Function\s*\(|\bnewFunc\s*\(\s*Function\b/g)) {
    found.push(rest.slice(Math.max(0, match.index - 60), match.index + 60).replace(/\s+/g, ' '));
  }
  return found;
}

/**
 * What other bundlers must not misread when they bundle the worker again (Vite, webpack 5):
 *
 * - onnxruntime-web imports its WASM glue with `import(url)` at run time, marked so that webpack
 *   and Vite leave it alone; minifying drops the marks, so they are put back (there is one such
 *   import).
 * - Its Node-only branches (taken when the module's URL is a `file:` URL) name its own bundle,
 *   `new URL("ort.webgpu.bundle.min.mjs", import.meta.url)`, a file the worker does not carry;
 *   webpack would try to resolve it and fail. The browser never takes them: they name the
 *   worker's own URL instead (there are two).
 * - sqlite-wasm's glue names its Worker1 script (SQLITE_WORKER1, below), which is not shipped.
 *
 * The build fails when the counts change, to be looked at.
 */
export function forOtherBundlers(code) {
  const runtimeImport = /\bimport\((?=[A-Za-z_$][\w$]*\))/g;
  const nodeBundle = /new ([A-Za-z_$][\w$]*)\("ort\.webgpu\.bundle\.min\.mjs",\s*import\.meta\.url\)/g;
  const imports = (code.match(runtimeImport) ?? []).length;
  const bundles = (code.match(nodeBundle) ?? []).length;
  if (imports !== 1) throw new Error(`build-worker: expected one dynamic import of a URL in the worker, found ${imports}`);
  if (bundles !== 2) throw new Error(`build-worker: expected onnxruntime's own bundle named twice, found ${bundles}`);
  const worker1 = (code.match(SQLITE_WORKER1) ?? []).length;
  if (worker1 !== 1) throw new Error(`build-worker: expected SQLite's Worker1 script named once, found ${worker1}`);
  return code
    .replace(runtimeImport, 'import(/* webpackIgnore: true */ /* @vite-ignore */ ')
    .replace(nodeBundle, (_, alias) => `new ${alias}(import.meta.url)`)
    .replace(SQLITE_WORKER1, 'new URL("sqlite3-worker1.mjs", String(import.meta.url))');
}

/**
 * sqlite-wasm's glue names its "Worker1" API's script, `new Worker(new URL("sqlite3-worker1.mjs",
 * import.meta.url))`, a second whole SQLite the stores never start (they run SQLite in this worker).
 * A bundler would look for it beside the worker and fail; with the URL's base not a literal
 * `import.meta.url`, none follows it, and it still resolves beside the worker if anyone asks.
 */
const SQLITE_WORKER1 = /new URL\("sqlite3-worker1\.mjs",\s*import\.meta\.url\)/g;

const HELPER_WORKER = 'kernel-helper.worker.js';

/** The index's helper worker, named by its source file in the bundle, named by the built one. */
export function withHelperWorker(code) {
  const source = /(["'`])\.\/kernel-helper\.worker\.ts\1/g;
  const found = (code.match(source) ?? []).length;
  if (found !== 1) throw new Error(`build-worker: expected the index's helper worker named once, found ${found}`);
  return code.replace(source, (_, quote) => `${quote}./${HELPER_WORKER}${quote}`);
}

/** Builds the worker and its runtime files into `out` (default dist/worker, emptied first). */
export async function buildWorker({ quiet = false, out = WORKER_OUT } = {}) {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const outfile = join(out, 'memory.worker.js');
  await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'worker', 'memory.worker.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: !process.env.HOUKAI_WORKER_READABLE,
    legalComments: 'linked',
    sourcemap: false,
    logLevel: 'warning',
    plugins: [prebuiltAssets, nodeOnly, hnswlibNoEval],
  });
  await writeFile(outfile, withHelperWorker(forOtherBundlers(await readFile(outfile, 'utf8'))));
  // The index kernel's helper threads (src/adapters/hnsw-i8/kernel-threads.ts) run in a module
  // worker of their own, beside this one.
  await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'src', 'adapters', 'hnsw-i8', 'kernel-helper.worker.ts')],
    outfile: join(out, HELPER_WORKER),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: !process.env.HOUKAI_WORKER_READABLE,
    logLevel: 'warning',
  });

  const ort = join(packageDir('onnxruntime-web'), 'dist');
  const tfjs = join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist');
  const beside = [
    ...['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'].map((name) => join(ort, name)),
    ...(await readdir(tfjs)).filter((name) => /^tfjs-backend-wasm.*\.wasm$/.test(name)).map((name) => join(tfjs, name)),
    // SQLite for stores on OPFS. Its glue names both with `new URL(…, import.meta.url)`, so a
    // bundler that bundles the worker again looks for them beside it; the proxy serves SQLite's
    // other OPFS VFS (installed on its own where the page is cross-origin isolated), which the
    // stores do not use. Its Worker1 script is not shipped (forOtherBundlers, below).
    ...['sqlite3.wasm', 'sqlite3-opfs-async-proxy.js'].map((name) => join(packageDir('@sqlite.org/sqlite-wasm'), 'dist', name)),
  ];
  for (const file of beside) await copyFile(file, join(out, file.split('/').pop()));
  for (const name of ['memory.worker.js', 'ort-wasm-simd-threaded.asyncify.mjs']) {
    const evaluations = stringEvaluations(await readFile(join(out, name), 'utf8'));
    if (evaluations.length > 0) throw new Error(`build-worker: ${name} would evaluate strings:\n${evaluations.join('\n')}`);
  }
  let bytes = 0;
  for (const name of await readdir(out)) bytes += (await stat(join(out, name))).size;
  if (!quiet) console.log(`build-worker: ${relative(root, outfile)} and ${beside.length} runtime files (${(bytes / 1e6).toFixed(1)} MB)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildWorker({ quiet: process.argv.includes('--quiet') }).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
