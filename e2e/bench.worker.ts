/**
 * The bench worker: a bench-only composition root, wired like worker/memory.worker.ts (same
 * registry, same host per connection, same error transfer; SharedWorker or dedicated Worker),
 * so `npm run bench`'s browser run measures the product's RPC path and storage/index adapters.
 *
 * Stores open with a deterministic synthetic 384-d embedder unless the request asks for
 * `embedder: 'use-lite'`, which opens the real bundled model exactly as the memory worker does.
 * The synthetic embedder lets the bench ingest 100k memories without running a model and keeps
 * model time out of the recall latency:
 *
 * - `m:<i>`   → the i-th vector of a seeded clustered corpus (100 unit centroids plus Gaussian
 *               noise, like test/helpers/prng.ts `makeClusteredVectors`), computed on demand
 *               from (seed, i) so the corpus never has to be held in memory;
 * - `q:<j>`   → a fresh sample from the same distribution (a query "near the data", not a
 *               stored point);
 * - `q:<j>@<n>` → a small perturbation of a stored vector `m:<i>` with i drawn from [0, n);
 * - anything else → a fresh sample seeded by a hash of the text.
 *
 * Besides the host API each connection exposes `benchInfo()`: when this worker started and
 * how each store came up (open time, snapshot or rebuild), so the bench can prove a cold start
 * ran in a fresh worker from the index snapshot.
 */
import * as Comlink from 'comlink';
import { createMemory, type CreateMemoryOptions, type Embedder, type LocalMemory } from '../src/local.ts';
import { databaseName, openDexieStorage } from '../src/adapters/storage-dexie.ts';
import { StoreRegistry, createHost, type OpenedStore } from '../src/rpc/host.ts';
import { openOptions, type OpenRequest } from '../src/rpc/protocol.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';
import { gaussian, mulberry32, perturb, randomUnitVector } from '../test/helpers/prng.ts';

installErrorTransfer();

const startedAt = performance.timeOrigin + performance.now();
const asset = (path: string): string => new URL(path, import.meta.url).href;
const isShared = typeof (globalThis as { onconnect?: unknown }).onconnect !== 'undefined' || 'SharedWorkerGlobalScope' in globalThis;

// ---------------------------------------------------------------------------------------------
// The synthetic embedder

export const SYNTHETIC_ID = 'synthetic-384';
const DIM = 384;
const CLUSTERS = 100;
const CORPUS_SEED = 0x5eed_0384;
const QUERY_SEED = 0x0a11_ce55;
/** Per-coordinate noise in units of 1/sqrt(dim), as in makeClusteredVectors (0.6 ≈ related texts). */
const SPREAD = 0.6;
const SIGMA = SPREAD / Math.sqrt(DIM);

const centroids: Float32Array[] = (() => {
  const normal = gaussian(mulberry32(CORPUS_SEED));
  return Array.from({ length: CLUSTERS }, () => randomUnitVector(DIM, normal));
})();

/** A 32-bit mix of two integers (murmur3 finaliser), to seed one point's generator. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** One point of the distribution: a seeded centroid plus seeded noise, normalised. */
function sample(seed: number, sigma = SIGMA): Float32Array {
  const random = mulberry32(seed);
  const centroid = centroids[Math.floor(random() * CLUSTERS)]!;
  return perturb(centroid, sigma, gaussian(random));
}

/** The i-th stored vector of the corpus. */
export function corpusVector(i: number): Float32Array {
  return sample(mix(CORPUS_SEED, i));
}

export function syntheticVector(text: string): Float32Array {
  const stored = /^m:(\d+)$/.exec(text);
  if (stored) return corpusVector(Number(stored[1]));
  const near = /^q:(\d+)@(\d+)$/.exec(text);
  if (near) {
    const random = mulberry32(mix(QUERY_SEED, Number(near[1])));
    const n = Math.max(1, Number(near[2]));
    const base = corpusVector(Math.floor(random() * n));
    return perturb(base, SIGMA * 0.5, gaussian(random));
  }
  const query = /^q:(\d+)$/.exec(text);
  if (query) return sample(mix(QUERY_SEED, Number(query[1])));
  return sample(mix(QUERY_SEED ^ 0xffff, fnv1a(text)));
}

const syntheticEmbedder: Embedder & { backend: string } = {
  id: SYNTHETIC_ID,
  dim: DIM,
  backend: 'synthetic',
  async embed(texts) {
    return texts.map(syntheticVector);
  },
};

// ---------------------------------------------------------------------------------------------
// Opening stores

/** Opens a store with asset URLs on this origin, as worker/memory.worker.ts does. */
function openWithOriginAssets(request: OpenRequest, onProgress?: CreateMemoryOptions['onProgress']): Promise<LocalMemory> {
  return createMemory({
    name: request.name,
    embedder: request.embedder ?? 'auto',
    ...(request.index ? { index: request.index } : {}),
    ...(request.onEmbedderChange ? { onEmbedderChange: request.onEmbedderChange } : {}),
    ...(onProgress ? { onProgress } : {}),
    useLite: { modelUrl: asset('../models/use-lite/'), wasmPaths: asset('../wasm/tfjs/'), ...request.useLite },
    minilm: { localModelPath: asset('../models/'), ...request.minilm },
  });
}

export interface StoreOpenRecord {
  name: string;
  embedder: string;
  /** Time inside the worker from the open request to the store being ready. */
  openMs: number;
  /** How the vector index came up: 'snapshot', 'snapshot+replay', 'rebuilt', 'empty'… */
  opened: string;
  /** Epoch milliseconds when the open finished. */
  at: number;
}

const opens: StoreOpenRecord[] = [];

async function open(request: OpenRequest, onProgress?: CreateMemoryOptions['onProgress']): Promise<OpenedStore> {
  const t0 = performance.now();
  const store =
    request.embedder === 'use-lite'
      ? await openWithOriginAssets(request, onProgress)
      : await createMemory({
          ...openOptions(request),
          embedder: syntheticEmbedder,
          ...(onProgress ? { onProgress } : {}),
        });
  opens.push({
    name: request.name,
    embedder: store.embedder.id,
    openMs: performance.now() - t0,
    opened: String(store.opened),
    at: performance.timeOrigin + performance.now(),
  });
  return store as unknown as OpenedStore;
}

const registry = new StoreRegistry({ open, shared: isShared });

export interface BenchInfo {
  /** Epoch milliseconds when this worker's script started. */
  startedAt: number;
  /** The worker's time origin (epoch ms): differs between worker instances. */
  timeOrigin: number;
  shared: boolean;
  stores: string[];
  opens: StoreOpenRecord[];
}

// ---------------------------------------------------------------------------------------------
// Diagnostics: where a recall's time goes, measured inside the worker (no RPC)

export interface RecallProbe {
  /** store.recall called directly in the worker (no comlink): median and p99 ms. */
  recallInWorker: { p50: number; p99: number };
  /** The synthetic embedder for one query. */
  embed: { p50: number; p99: number };
  /** The storage adapter's getByLabels for `fetch` random labels (what recall does after the index search). */
  getByLabels: { p50: number; p99: number };
  /** The same rows read straight through the `label` index of `memories` in one IndexedDB transaction. */
  rawByLabelIndex: { p50: number; p99: number };
  /** The `vectors` + `memories` primary-key reads getByLabels performs, in raw IndexedDB. */
  rawVectorsThenMemories: { p50: number; p99: number };
  fetch: number;
}

function quantiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return { p50: Math.round(at(0.5) * 1000) / 1000, p99: Math.round(at(0.99) * 1000) / 1000 };
}

function idbRequest<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function probeRecall(name: string, runs: number, k: number): Promise<RecallProbe> {
  const store = await registry.get(name);
  const live = await store.count();
  const pool = Math.min(live, k * 4);
  const random = mulberry32(0xbe7c4);
  const pickLabels = (): number[] => Array.from({ length: pool }, () => Math.floor(random() * live));
  const recall: number[] = [];
  const embed: number[] = [];
  for (let j = 0; j < runs; j++) {
    let t0 = performance.now();
    await syntheticEmbedder.embed([`q:${2_000_000 + j}`]);
    embed.push(performance.now() - t0);
    t0 = performance.now();
    await store.recall(`q:${2_000_000 + j}`, { k, touch: false });
    recall.push(performance.now() - t0);
  }
  const storage = await openDexieStorage(name);
  const byLabels: number[] = [];
  try {
    for (let j = 0; j < runs; j++) {
      const labels = pickLabels();
      const t0 = performance.now();
      await storage.getByLabels(labels);
      byLabels.push(performance.now() - t0);
    }
  } finally {
    storage.close();
  }
  const db = await idbRequest(indexedDB.open(databaseName(name)));
  const byIndex: number[] = [];
  const twoStores: number[] = [];
  try {
    for (let j = 0; j < runs; j++) {
      const labels = pickLabels();
      let t0 = performance.now();
      const tx = db.transaction('memories', 'readonly');
      const index = tx.objectStore('memories').index('label');
      await Promise.all(labels.map((label) => idbRequest(index.get(label))));
      byIndex.push(performance.now() - t0);
      t0 = performance.now();
      const tx2 = db.transaction(['vectors', 'memories'], 'readonly');
      const rows = await Promise.all(labels.map((label) => idbRequest(tx2.objectStore('vectors').get(label) as IDBRequest<{ id?: string } | undefined>)));
      await Promise.all(rows.map((row) => idbRequest(tx2.objectStore('memories').get(row?.id ?? ''))));
      twoStores.push(performance.now() - t0);
    }
  } finally {
    db.close();
  }
  return {
    recallInWorker: quantiles(recall),
    embed: quantiles(embed),
    getByLabels: quantiles(byLabels),
    rawByLabelIndex: quantiles(byIndex),
    rawVectorsThenMemories: quantiles(twoStores),
    fetch: pool,
  };
}

/**
 * The steps of opening a store from its HNSW snapshot, timed one by one in a fresh worker
 * before any store is open (the order index-hnsw.ts and index-sync.ts follow). Diagnostic only:
 * it repeats the adapter's reads with raw IndexedDB and hnswlib calls.
 */
export interface OpenProbe {
  /** import + instantiate hnswlib-wasm and mount IDBFS (its loader polls for the mount every 100 ms). */
  hnswlibLoadMs: number;
  /** Any wait until the file system reports synced after the module resolved. */
  idbfsStartupSyncMs: number;
  /** Bytes of every file IDBFS holds (all stores' snapshots), and of this store's. */
  idbfsBytes: number;
  snapshotBytes: number;
  /** Reading this store's snapshot record back from IndexedDB (loadSnapshot does it to verify it). */
  readSnapshotRecordMs: number;
  /** The checksum over those bytes. */
  checksumMs: number;
  /** IDBFS populate sync (IndexedDB → memory, every file), as loadSnapshot runs before readIndex. */
  populateSyncMs: number;
  populated: boolean;
  /** hnswlib readIndex from the in-memory file system, then getUsedLabels / getDeletedLabels. */
  readIndexMs: number;
  readIndexResult: string;
  labelsMs: number;
  /** hnswlib searchKnn alone, 40 neighbours at ef 128, on the loaded snapshot. */
  searchMs: { p50: number; p99: number };
  /** hnswlib addPoints of 1,024 new corpus vectors into the loaded graph, per point (not persisted). */
  insertPerPointMs: number;
  /** Dexie open, readMeta, count, vectorCount (what createMemory and IndexSync.open ask first), each. */
  storageMs: Record<string, number>;
  totalMs: number;
}

async function probeOpen(name: string): Promise<OpenProbe> {
  if (registry.names().length > 0) throw new Error('probeOpen needs a fresh worker with no store open');
  const tStart = performance.now();
  let t = tStart;
  const lap = (): number => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return Math.round(ms * 10) / 10;
  };
  // Imported here, not at the top, so local.ts's lazy import of the index stays a lazy chunk.
  const { loadHnswlibModule } = await import('../src/adapters/hnswlib-loader.ts');
  const { snapshotChecksum, snapshotFileName } = await import('../src/adapters/index-hnsw.ts');
  const lib = await loadHnswlibModule();
  const hnswlibLoadMs = lap();
  const manager = lib.EmscriptenFileSystemManager as unknown as { isSynced(): boolean };
  for (let waited = 0; !manager.isSynced() && waited < 60_000; waited += 2) await new Promise((r) => setTimeout(r, 2));
  const idbfsStartupSyncMs = lap();

  const file = snapshotFileName(name);
  const fs = await idbRequest(indexedDB.open('/hnswlib-index'));
  let bytes: Uint8Array | undefined;
  let idbfsBytes = 0;
  try {
    const store = fs.transaction('FILE_DATA', 'readonly').objectStore('FILE_DATA');
    const record = (await idbRequest(store.get(`/hnswlib-index/${file}`))) as { contents?: ArrayBufferView } | undefined;
    if (record?.contents) bytes = new Uint8Array(record.contents.buffer, record.contents.byteOffset, record.contents.byteLength);
  } finally {
    fs.close();
  }
  const readSnapshotRecordMs = lap();
  if (!bytes) throw new Error(`no snapshot file for ${name}`);
  await snapshotChecksum(bytes);
  const checksumMs = lap();
  // The size of every file IDBFS holds (outside the timings).
  const sizes = await idbRequest(indexedDB.open('/hnswlib-index'));
  try {
    const all = (await idbRequest(sizes.transaction('FILE_DATA', 'readonly').objectStore('FILE_DATA').getAll())) as { contents?: ArrayBufferView }[];
    idbfsBytes = all.reduce((sum, r) => sum + (r.contents?.byteLength ?? 0), 0);
  } finally {
    sizes.close();
  }
  lap();

  // loadSnapshot's populate sync: IDBFS copies every file it holds (all stores' snapshots) from
  // IndexedDB into the in-memory file system, where hnswlib reads from.
  const hooked = lib as unknown as { setIdbfsSynced?: (ok: boolean) => void };
  const original = hooked.setIdbfsSynced;
  const synced = new Promise<boolean>((resolve) => {
    hooked.setIdbfsSynced = (ok: boolean) => {
      hooked.setIdbfsSynced = original;
      try {
        original?.call(lib, ok);
      } finally {
        resolve(ok === true);
      }
    };
  });
  lap();
  (lib.EmscriptenFileSystemManager as unknown as { syncFS(populate: boolean, done: unknown): void }).syncFS(true, undefined);
  const populated = await synced;
  const populateSyncMs = lap();

  type Native = {
    readIndex(file: string, max: number): unknown;
    getUsedLabels(): number[];
    getDeletedLabels(): number[];
    setEfSearch(ef: number): void;
    searchKnn(query: Float32Array, k: number, filter: undefined): unknown;
    addPoints(vectors: Float32Array[], labels: number[], replaceDeleted: boolean): void;
    delete(): void;
  };
  const native = new lib.HierarchicalNSW('cosine', DIM, '') as unknown as Native;
  let readIndexMs = 0;
  let labelsMs = 0;
  let readIndexResult: unknown;
  const search: number[] = [];
  let insertPerPointMs = 0;
  try {
    const count = (await rowCount(name)) ?? 0;
    lap();
    readIndexResult = native.readIndex(file, Math.ceil(count * 1.25) + 16);
    readIndexMs = lap();
    native.getUsedLabels();
    native.getDeletedLabels();
    labelsMs = lap();
    // The bare graph search a recall makes (k·overfetch = 40 neighbours at ef 128, the defaults).
    native.setEfSearch(128);
    for (let j = 0; j < 100; j++) {
      const query = syntheticVector(`q:${3_000_000 + j}`);
      const t0 = performance.now();
      native.searchKnn(query, 40, undefined);
      search.push(performance.now() - t0);
    }
    lap();
    // Inserting into the full graph: what each ingest batch pays in index.add at this size.
    const extra = Array.from({ length: 1024 }, (_, j) => corpusVector(count + j));
    lap();
    native.addPoints(extra, extra.map((_, j) => count + j), false);
    insertPerPointMs = Math.round((lap() / extra.length) * 1000) / 1000;
  } finally {
    native.delete();
  }
  const storage = await openDexieStorage(name);
  const storageMs: Record<string, number> = {};
  try {
    storageMs.open = lap();
    await storage.readMeta();
    storageMs.readMeta = lap();
    await storage.count();
    storageMs.count = lap();
    await storage.vectorCount();
    storageMs.vectorCount = lap();
  } finally {
    storage.close();
  }
  return {
    hnswlibLoadMs,
    idbfsStartupSyncMs,
    idbfsBytes,
    snapshotBytes: bytes.byteLength,
    readSnapshotRecordMs,
    checksumMs,
    populateSyncMs,
    populated,
    readIndexMs,
    readIndexResult: String(readIndexResult),
    labelsMs,
    searchMs: quantiles(search),
    insertPerPointMs,
    storageMs,
    totalMs: Math.round(performance.now() - tStart),
  };
}

/** The store's row count straight from IndexedDB (no Dexie), for sizing readIndex. */
async function rowCount(name: string): Promise<number | undefined> {
  const db = await idbRequest(indexedDB.open(databaseName(name)));
  try {
    return await idbRequest(db.transaction('memories', 'readonly').objectStore('memories').count());
  } finally {
    db.close();
  }
}

function connection() {
  return Object.assign(createHost(registry), {
    benchInfo: async (): Promise<BenchInfo> => ({
      startedAt,
      timeOrigin: performance.timeOrigin,
      shared: isShared,
      stores: registry.names(),
      opens: [...opens],
    }),
    probeRecall,
    probeOpen,
  });
}

export type BenchHostApi = ReturnType<typeof connection>;

if (isShared) {
  (globalThis as unknown as { onconnect: (event: MessageEvent) => void }).onconnect = (event) => {
    for (const port of event.ports) Comlink.expose(connection(), port);
  };
} else {
  Comlink.expose(connection(), globalThis as unknown as Comlink.Endpoint);
}
