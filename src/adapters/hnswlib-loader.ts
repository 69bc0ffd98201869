/**
 * Loads the hnswlib-wasm module once per realm.
 *
 * hnswlib-wasm 0.8.2 is an Emscripten build with `-s ENVIRONMENT=web`: its glue refuses to start
 * unless `typeof window == 'object'` (or `importScripts` exists), and it mounts an IDBFS
 * directory (`/hnswlib-index`, persisted in the IndexedDB database of that name) while loading.
 * In a browser page or worker it loads as is. In Node (tests, benchmarks) we install the one
 * shim it checks for — `window` pointing at `globalThis` — for the duration of the load and
 * remove it afterwards, so other libraries that sniff `window` (transformers.js, Dexie) do not
 * take Node for a browser. Nothing in the glue reads `window` after start-up except fallbacks
 * we never hit (`window.indexedDB` when `indexedDB` is absent, `window.prompt` for stdin), and
 * `document` is only read behind `typeof document != 'undefined'` guards, so no `document`
 * stub is needed.
 *
 * IndexedDB is the caller's business: a browser has it; Node tests import
 * `fake-indexeddb/auto` first. Without it the module still loads and searches, but its IDBFS
 * sync fails, so snapshots cannot be saved or loaded.
 */
import type { HnswlibModule } from 'hnswlib-wasm/dist/hnswlib.js';
import { MemoryError } from '../core/errors.ts';
import { defaultLog, type Log } from '../core/log.ts';

export type { HnswlibModule };

let loading: Promise<HnswlibModule> | undefined;

/**
 * The glue prints two lines with `console.log` (not Emscripten's `print`, so they cannot be
 * configured away): "Mounting IDBFS filesystem..." when it loads and "b. jsFS synced successfully"
 * after every file-system sync — on stdout in Node, where stdout is the program's (MCP over stdio,
 * `| jq`). Exactly those two lines are taken off `console.log` and go to the store's log at
 * 'debug' level; every other call passes through untouched.
 */
const GLUE_LINES: ReadonlySet<string> = new Set(['EmscriptenFileSystemManager: Mounting IDBFS filesystem...\n', 'b. jsFS synced successfully']);
let glueLog: Log = defaultLog;
let filtering = false;

/** Where the glue's two lines go from now on (the latest store opened with a `log`). */
export function setHnswlibLog(log: Log): void {
  glueLog = log;
}

function filterGlueLines(): void {
  if (filtering) return;
  filtering = true;
  const original = console.log;
  console.log = function (this: unknown, ...args: unknown[]) {
    if (args.length === 1 && typeof args[0] === 'string' && GLUE_LINES.has(args[0])) {
      glueLog('debug', `[hnswlib] ${args[0].trim()}`);
      return;
    }
    return original.apply(this, args);
  };
}

/** The hnswlib-wasm module (memoised; concurrent callers share one load). */
export function loadHnswlibModule(): Promise<HnswlibModule> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw new MemoryError('MODEL_UNAVAILABLE', `Could not load hnswlib-wasm: ${describe(error)}`, {
      cause: describe(error),
    });
  });
  return loading;
}

/** The module if a load has started (resolved or pending), without starting one. */
export function peekHnswlibModule(): Promise<HnswlibModule> | undefined {
  return loading;
}

async function load(): Promise<HnswlibModule> {
  filterGlueLines();
  const g = globalThis as { window?: unknown };
  const shimmed = typeof g.window === 'undefined' && typeof (globalThis as { importScripts?: unknown }).importScripts !== 'function';
  if (shimmed) g.window = globalThis;
  try {
    // The package has no `main`/`exports` (only `module`), so Node cannot resolve the bare
    // specifier; the file path works for Node and bundlers alike.
    const { loadHnswlib } = await import('hnswlib-wasm/dist/hnswlib.js');
    return await loadHnswlib();
  } finally {
    if (shimmed && g.window === globalThis) delete g.window;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
