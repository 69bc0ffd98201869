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
import { databaseName, openDexieEngine, openDexieStorage } from '../src/adapters/storage-dexie.ts';
import { storageOver, type StorageEngine } from '../src/core/storage/index.ts';
import { PhaseLedger, timeCalls, timedEngine, timedIndex, type PhaseTotal } from './profiling.ts';
import { StoreRegistry, createHost, type OpenedStore } from '../src/rpc/host.ts';
import { openOptions, type OpenRequest } from '../src/rpc/protocol.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';
import { originModelOptions, originTransformersOptions } from '../worker/origin-assets.ts';
import { createTransformersEmbedder } from '../src/adapters/embedder-transformers.ts';
import { mulberry32 } from '../test/helpers/prng.ts';
import { corpusVector, DIM, SYNTHETIC_ID, syntheticVector } from './synthetic.ts';

export { SYNTHETIC_ID } from './synthetic.ts';

installErrorTransfer();

const startedAt = performance.timeOrigin + performance.now();
const asset = (path: string): string => new URL(path, import.meta.url).href;
const isShared = typeof (globalThis as { onconnect?: unknown }).onconnect !== 'undefined' || 'SharedWorkerGlobalScope' in globalThis;

// ---------------------------------------------------------------------------------------------
// The synthetic embedder (e2e/synthetic.ts)

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
    ...originModelOptions(request),
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

/** What the bench reads of an int8 index: its memory, its threads and the helpers' share. */
type I8Handle = { memory(): { usedBytes: number; reservedBytes: number; threads: number; helperItems: number } };

/** The int8 indexes this worker created, by store, so `memoryInfo` can report their WebAssembly memory. */
const i8Indexes = new Map<string, I8Handle>();

/** 'hnsw-i8' wired as createMemory wires it, keeping a handle on the index for `memoryInfo`. */
function indexOption(request: OpenRequest): CreateMemoryOptions['index'] {
  if (request.index !== 'hnsw-i8') return profiling ? timedIndexFactory(request.index) : request.index;
  return async (options) => {
    const [{ createHnswI8IndexFactory }, { idbBlockStore }, opfs] = await Promise.all([
      import('../src/adapters/index-hnsw-i8.ts'),
      import('../src/adapters/index-blocks-idb.ts'),
      request.storage === 'opfs' ? Promise.all([import('../src/adapters/sql/opfs-store.ts'), import('../src/adapters/sql/driver-sqlite-wasm.ts').then((d) => d.opfsPool())]) : null,
    ]);
    // The blocks where createMemory keeps them: the store's IndexedDB database, or its blocks file in OPFS.
    const blocks = opfs ? (name: string) => opfs[0].opfsBlockStore(opfs[1], name) : (name: string) => idbBlockStore({ database: databaseName(name) });
    const index = await createHnswI8IndexFactory({ blocks })(options);
    i8Indexes.set(options.name, index as unknown as I8Handle);
    return profiling ? timedIndex(index, profiling) : index;
  };
}

// ---------------------------------------------------------------------------------------------
// Profiling (bench/million.ts --profile): the stores opened while it is on get their storage
// engine, index and methods timed (e2e/profiling.ts); `profile()` hands the totals over.

let profiling: PhaseLedger | null = null;

function timedIndexFactory(choice: 'hnsw' | 'exact' | undefined): NonNullable<CreateMemoryOptions['index']> {
  return async (options) => {
    const index =
      choice === 'exact'
        ? (await import('../src/adapters/index-exact.ts')).createExactIndex({ dim: options.dim })
        : await (await import('../src/adapters/index-hnsw.ts')).createHnswIndexFactory()(options);
    return timedIndex(index, profiling!);
  };
}

export interface WorkerMemory {
  /** Chromium's performance.memory in this worker (JS heap), when exposed. */
  jsHeapUsedBytes: number | null;
  jsHeapTotalBytes: number | null;
  /** WebAssembly memory of the int8 indexes (reserved = the linear memory's size). */
  i8IndexBytes: { used: number; reserved: number };
  /** The most threads any int8 index inserts batches with (1: no helper threads). */
  i8IndexThreads: number;
  /** Batch items the int8 indexes' helper threads searched (0: they never took part). */
  i8HelperItems: number;
  /** hnswlib-wasm's linear memory, when it was loaded. */
  hnswlibBytes: number | null;
}

async function memoryInfo(): Promise<WorkerMemory> {
  const heap = (performance as unknown as { memory?: { usedJSHeapSize: number; totalJSHeapSize: number } }).memory;
  let used = 0;
  let reserved = 0;
  let threads = 1;
  let helperItems = 0;
  for (const index of i8Indexes.values()) {
    try {
      const m = index.memory();
      used += m.usedBytes;
      reserved += m.reservedBytes;
      threads = Math.max(threads, m.threads);
      helperItems += m.helperItems;
    } catch {
      /* disposed */
    }
  }
  const { peekHnswlibModule } = await import('../src/adapters/hnswlib-loader.ts');
  const lib = (await peekHnswlibModule()?.catch(() => undefined)) as { HEAPU8?: Uint8Array } | undefined;
  return {
    jsHeapUsedBytes: heap?.usedJSHeapSize ?? null,
    jsHeapTotalBytes: heap?.totalJSHeapSize ?? null,
    i8IndexBytes: { used, reserved },
    i8IndexThreads: threads,
    i8HelperItems: helperItems,
    hnswlibBytes: lib?.HEAPU8?.byteLength ?? null,
  };
}

/** The storage engine a profiled store is opened on, where createMemory would keep it. */
async function profiledEngine(request: OpenRequest, store: string): Promise<StorageEngine> {
  if (request.storage !== 'opfs') return openDexieEngine(store);
  return (await import('../src/adapters/sql/opfs-store.ts')).openOpfsEngine(store);
}

async function open(request: OpenRequest, onProgress?: CreateMemoryOptions['onProgress']): Promise<OpenedStore> {
  const t0 = performance.now();
  const store =
    request.embedder === 'use-lite' || request.embedder === 'minilm' || request.embedder === 'bge-small'
      ? await openWithOriginAssets(request, onProgress)
      : await createMemory({
          ...openOptions(request),
          embedder: syntheticEmbedder,
          ...(request.index || profiling ? { index: indexOption(request) } : {}),
          // Profiled, the store's engine calls are timed too: IndexedDB's, or SQLite's on OPFS (the
          // rows' file opened as createMemory opens it; the index's blocks come with indexOption).
          ...(profiling ? { storage: async (store: string) => storageOver(timedEngine(await profiledEngine(request, store), profiling!)) } : {}),
          ...(onProgress ? { onProgress } : {}),
        });
  if (profiling) {
    profiling.add('store open', performance.now() - t0);
    timeCalls(store as unknown as { call(method: string, args: unknown[]): Promise<unknown> }, profiling);
  }
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
  /** The same rows read straight from `memoryRows` by primary key (the label) in one IndexedDB transaction. */
  rawRowsByLabel: { p50: number; p99: number };
  /** The rows and their vectors (`memoryRows` + `vectors`, both by label) in one IndexedDB transaction: what a recall reads. */
  rawRowsAndVectors: { p50: number; p99: number };
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
    await store.recall(`q:${2_000_000 + j}`, { k, touch: false, mode: 'semantic' });
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
  const byLabel: number[] = [];
  const twoStores: number[] = [];
  try {
    for (let j = 0; j < runs; j++) {
      const labels = pickLabels();
      let t0 = performance.now();
      const rows = db.transaction('memoryRows', 'readonly').objectStore('memoryRows');
      await Promise.all(labels.map((label) => idbRequest(rows.get(label))));
      byLabel.push(performance.now() - t0);
      t0 = performance.now();
      const tx2 = db.transaction(['vectors', 'memoryRows'], 'readonly');
      await Promise.all(labels.flatMap((label) => [idbRequest(tx2.objectStore('vectors').get(label)), idbRequest(tx2.objectStore('memoryRows').get(label))]));
      twoStores.push(performance.now() - t0);
    }
  } finally {
    db.close();
  }
  return {
    recallInWorker: quantiles(recall),
    embed: quantiles(embed),
    getByLabels: quantiles(byLabels),
    rawRowsByLabel: quantiles(byLabel),
    rawRowsAndVectors: quantiles(twoStores),
    fetch: pool,
  };
}

/**
 * The steps of opening a store from its HNSW snapshot, timed one by one in a fresh worker
 * before any store is open (the order index-hnsw.ts and index-keeper.ts follow). Diagnostic only:
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
  /** Dexie open, readMeta, count, vectorCount (what createMemory and IndexKeeper.open ask first), each. */
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
    return await idbRequest(db.transaction('memoryRows', 'readonly').objectStore('memoryRows').count());
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Real models in this worker, loaded exactly as the memory worker loads them (origin-assets.ts)

export interface EmbedProbe {
  /** One vector per text, as plain arrays. */
  vectors: number[][];
  backend: string;
  loadMs: number;
  embedMs: number;
}

export interface Isolation {
  crossOriginIsolated: boolean;
  sharedArrayBuffer: boolean;
  hardwareConcurrency: number;
  shared: boolean;
}

function isolation(): Isolation {
  return {
    crossOriginIsolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer !== 'undefined',
    hardwareConcurrency: navigator.hardwareConcurrency,
    shared: isShared,
  };
}

/** Loads `model` (a transformers.js id) from this origin and embeds `texts`; times both. */
async function embedProbe(model: string, texts: string[], options: { input?: 'query' | 'passage'; threads?: number; batchSize?: number } = {}): Promise<EmbedProbe> {
  const t0 = performance.now();
  const embedder = await createTransformersEmbedder({
    model,
    ...originTransformersOptions(),
    ...(options.threads ? { threads: options.threads } : {}),
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
  });
  const t1 = performance.now();
  try {
    const vectors = await embedder.embed(texts, options.input ? { input: options.input } : {});
    return { vectors: vectors.map((v) => Array.from(v)), backend: embedder.backend, loadMs: t1 - t0, embedMs: performance.now() - t1 };
  } finally {
    await embedder.dispose();
  }
}

// The int8 index alone at a million (bench/million.ts --index-only): no store rows, so a million
// vectors go in within minutes; its snapshot blocks live in a database of their own.

export interface IndexBenchResult {
  n: number;
  insertPerS: number;
  /** Insert rate over the last tenth (the index at 90–100% of its size). */
  insertLastTenthPerS: number;
  saveMs: number;
  blockBytes: number;
  searchMs: { p50: number; p99: number };
  /** Top-k labels per query (recall is computed in Node against exact search). */
  hits: number[][];
  memory: WorkerMemory;
}

async function indexBench(name: string, n: number, queries: string[], k: number): Promise<IndexBenchResult> {
  const [{ createHnswI8IndexFactory }, { idbBlockStore }] = await Promise.all([import('../src/adapters/index-hnsw-i8.ts'), import('../src/adapters/index-blocks-idb.ts')]);
  const blocks = idbBlockStore({ database: `houkai-index:${name}`, create: true });
  const index = await createHnswI8IndexFactory({ blocks: () => blocks })({ name, dim: DIM, capacity: n });
  i8Indexes.set(name, index as unknown as I8Handle);
  const t0 = performance.now();
  let tenth = t0;
  const batch = 1000;
  for (let start = 0; start < n; start += batch) {
    if (start === Math.floor(n * 0.9 / batch) * batch) tenth = performance.now();
    const labels: number[] = [];
    const vectors: Float32Array[] = [];
    for (let i = start; i < Math.min(n, start + batch); i++) {
      labels.push(i);
      vectors.push(corpusVector(i));
    }
    index.add(labels, vectors);
    if (start % 50_000 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  const t1 = performance.now();
  const saved = await index.saveSnapshot(1);
  const saveMs = performance.now() - t1;
  if (!saved) throw new Error('the index snapshot was not written');
  const vectors = queries.map((q) => syntheticVector(q));
  for (let j = 0; j < 20; j++) index.search(vectors[j % vectors.length]!, k);
  const times: number[] = [];
  const hits = vectors.map((v) => {
    const t = performance.now();
    const found = index.search(v, k);
    times.push(performance.now() - t);
    return found.map((h) => h.label);
  });
  const memory = await memoryInfo();
  const blockBytes = await blocks.byteSize!();
  index.dispose();
  i8Indexes.delete(name);
  // Corpus generation is timed too; it is small next to insertion (measured separately in Node).
  return {
    n,
    insertPerS: Math.round(n / ((t1 - t0) / 1000)),
    insertLastTenthPerS: Math.round((n - Math.floor(n * 0.9 / batch) * batch) / ((t1 - tenth) / 1000)),
    saveMs: Math.round(saveMs),
    blockBytes,
    searchMs: quantiles(times),
    hits,
    memory,
  };
}

/** Opens the index saved by `indexBench` (in a fresh worker) and answers one search. */
async function indexOpen(name: string, query: string, k: number): Promise<{ loadMs: number; firstSearchMs: number; size: number; workerStartedAt: number; memory: WorkerMemory }> {
  const [{ createHnswI8IndexFactory }, { idbBlockStore }] = await Promise.all([import('../src/adapters/index-hnsw-i8.ts'), import('../src/adapters/index-blocks-idb.ts')]);
  const t0 = performance.now();
  const index = await createHnswI8IndexFactory({ blocks: () => idbBlockStore({ database: `houkai-index:${name}`, create: true }) })({ name, dim: DIM, capacity: 1024 });
  i8Indexes.set(name, index as unknown as I8Handle);
  const generation = await index.loadSnapshot();
  const loadMs = performance.now() - t0;
  if (generation === null) throw new Error('the index snapshot did not load');
  const t1 = performance.now();
  const found = index.search(syntheticVector(query), k);
  const firstSearchMs = performance.now() - t1;
  if (found.length !== k) throw new Error('the first search came back short');
  const memory = await memoryInfo();
  const size = index.size();
  index.dispose();
  i8Indexes.delete(name);
  return { loadMs: Math.round(loadMs), firstSearchMs: Math.round(firstSearchMs * 1000) / 1000, size, workerStartedAt: startedAt, memory };
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
    /** Profiling on for the stores opened from now on (off: none), and the totals so far cleared. */
    setProfiling: async (on: boolean): Promise<void> => {
      profiling = on ? (profiling ?? new PhaseLedger()) : null;
      profiling?.take();
    },
    /** The profile's totals since the last call (empty when profiling is off). */
    profile: async (): Promise<Record<string, PhaseTotal>> => profiling?.take() ?? {},
    embedProbe,
    isolation: async () => isolation(),
    memoryInfo,
    indexBench,
    indexOpen,
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
