// Exposes the client to the Playwright specs, and registers the app's service worker so the
// offline scenarios run exactly as the product does.
import { registerSW } from 'virtual:pwa-register';
import Dexie from 'dexie';
import { connectMemory, MemoryError, type MemoryClient, type ConnectOptions } from '../src/index.ts';
import { databaseName, openDexieEngine, SCHEMA_VERSIONS } from '../src/adapters/storage-dexie.ts';
import { lexicalFields } from '../src/core/domain/lexical-index.ts';
import { makeMemory } from '../test/helpers/memory.ts';

declare global {
  interface Window {
    houkai: {
      connect(options?: ConnectOptions): Promise<MemoryClient>;
      /** The same, but in a dedicated worker of this page's own (not the shared one): an independent owner of the store. */
      connectDedicated(options?: ConnectOptions): Promise<MemoryClient>;
      MemoryError: typeof MemoryError;
      /**
       * Writes store `name` as schema v10 wrote it (float32 vectors with the memory id, every
       * index of the time), `n` memories `legacy memory <i> <word>` with seeded unit vectors, for
       * the upgrade specs. Answers the IndexedDB version the database was left at.
       */
      writeV10Store(name: string, n: number, embedderId: string, dim: number): Promise<number>;
      /**
       * Opens store `name`'s database in this page (another realm than the memory worker) and
       * counts the writes its engine hears of, into `writesHeard[name]`.
       */
      watchWrites(name: string): Promise<void>;
      writesHeard: Record<string, number>;
      swReady: Promise<boolean>;
      progress: unknown[];
    };
  }
}

const status = document.getElementById('status')!;

const swReady: Promise<boolean> = 'serviceWorker' in navigator
  ? new Promise((resolve) => {
      registerSW({ immediate: true, onRegisteredSW: () => void navigator.serviceWorker.ready.then(() => resolve(true)), onRegisterError: () => resolve(false) });
    })
  : Promise.resolve(false);

window.houkai = {
  connect: (options) => connectMemory({ embedder: 'use-lite', ...options }),
  connectDedicated: (options) =>
    connectMemory({
      embedder: 'use-lite',
      worker: () => new Worker(new URL('../worker/memory.worker.ts', import.meta.url), { type: 'module', name: 'houkai-web-dedicated' }),
      ...options,
    }),
  MemoryError,
  async writeV10Store(name, n, embedderId, dim) {
    const db = new Dexie(databaseName(name));
    for (const v of SCHEMA_VERSIONS.slice(0, 10)) db.version(v.version).stores(v.stores);
    let seed = 12345;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
    const now = Math.floor(Date.now() / 1000);
    let length = 0;
    for (let from = 0; from < n; from += 2_000) {
      const rows: Record<string, unknown>[] = [];
      const vectors: Record<string, unknown>[] = [];
      for (let i = from; i < Math.min(n, from + 2_000); i++) {
        const text = `legacy memory ${i} w${i.toString(36)}`;
        const lexical = lexicalFields(text);
        length += lexical.termLength;
        const at = now - n + i;
        rows.push({ ...makeMemory(`legacy-${i}`, text, { createdAt: at, lastAccessed: at, contentHash: `legacy${i}` }), label: i, ...lexical, linkTargets: [] });
        const v = Float32Array.from({ length: dim }, random);
        const norm = Math.hypot(...v);
        vectors.push({ label: i, id: `legacy-${i}`, vector: v.map((x) => x / norm), gen: 1 });
      }
      await db.transaction('rw', ['memories', 'vectors'], async () => {
        await db.table('memories').bulkAdd(rows);
        await db.table('vectors').bulkAdd(vectors);
      });
    }
    await db.table('meta').put({ key: 'store', value: { schemaVersion: 10, embedderId, dim, generation: 1, nextLabel: n, createdAt: now, lexicalDocs: n, lexicalLength: length } });
    // A store that was used has settings beside its metadata row, the canary's value a string.
    await db.table('meta').put({ key: 'setting:canary', value: crypto.randomUUID() });
    const version = db.verno;
    db.close();
    return version;
  },
  async watchWrites(name) {
    const engine = await openDexieEngine(name);
    window.houkai.writesHeard[name] = 0;
    engine.watch!(() => void window.houkai.writesHeard[name]!++);
  },
  writesHeard: {},
  swReady,
  progress: [],
};
status.textContent = 'ready';
