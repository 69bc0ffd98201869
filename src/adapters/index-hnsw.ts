/**
 * HNSW cosine index on hnswlib-wasm, with snapshots persisted in IndexedDB.
 *
 * The index is a cache of the vectors table: it can always be rebuilt, so every snapshot path
 * fails closed — a snapshot that is missing, from another dimension, or fails its checksum
 * loads as `null` and the caller rebuilds.
 *
 * Facts about hnswlib-wasm 0.8.2 this file relies on (verified against the shipped build, whose
 * bindings differ from its d.ts and from the repository's later wrapper.cpp):
 * - `new HierarchicalNSW(space, dim, autoSaveFilename)`: a non-empty file name makes every
 *   add/delete/resize rewrite the whole index file and sync IDBFS. We always pass ''.
 * - `initIndex(max, m, efC, seed)` takes exactly 4 arguments and always enables
 *   `allow_replace_deleted`; `readIndex(file, max)` does too. So `addPoint(…, true)` reuses a
 *   deleted slot (growth is bounded by the live count), but re-adding a label that is marked
 *   deleted throws unless it is unmarked first, and replacing with a label that is already
 *   present would orphan the old slot. We therefore track live and deleted labels here and
 *   only ever pass `replaceDeleted = true` for labels the graph has never seen.
 * - `addPoint`/`addPoints` throw when `currentCount + batch > maxElements`, even for updates of
 *   existing labels and slot replacements, so capacity is reserved before every batch.
 * - `addPoint`, `markDelete` and `unmarkDelete` each rebuild a label cache in O(n); the batch
 *   forms `addPoints`/`markDeleteItems` do it once per call, so we use those.
 * - `searchKnn` throws when k > maxElements (not when k > live count: it then returns fewer);
 *   the JS filter is honoured; hnswlib itself searches with ef = max(ef, k).
 * - `writeIndex(file)` serialises synchronously into the in-memory FS under `/hnswlib-index`
 *   and starts an IDBFS write sync itself. IDBFS keeps every file of that directory in one
 *   IndexedDB database named `/hnswlib-index` (store `FILE_DATA`, key = path, value
 *   `{ timestamp, mode, contents }`). The module does not export `FS`, so we cannot read or
 *   delete files except through that database.
 * - Every IDBFS sync ends in `Module.setIdbfsSynced(ok)`; the package's own `syncFileSystem`
 *   keeps a single callback slot, so overlapping syncs resolve each other's promises. We hook
 *   `setIdbfsSynced` to learn each sync's outcome and run all file work one sync at a time.
 *
 * Integrity: the snapshot's descriptor (generation, dim, live and slot counts, byte length and
 * a checksum of the bytes as stored in IndexedDB) lives in a small database of our own,
 * `houkai-hnsw-snapshots`, because a record written into IDBFS's store behind its back would be
 * deleted by its next sync. Load verifies the stored bytes against it before handing them to
 * hnswlib's reader.
 */
import { invalid, MemoryError } from '../core/errors.ts';
import type { IndexHit, VectorIndex, VectorIndexFactory } from '../core/ports.ts';
import { loadHnswlibModule, peekHnswlibModule, type HnswlibModule } from './hnswlib-loader.ts';
import { checkBatch, checkQuery } from '../core/domain/index-checks.ts';

export interface HnswIndexOptions {
  /** Graph degree (links per node per layer; layer 0 has 2·m). Default 16. */
  m?: number;
  /** Candidate list size while inserting. Default 100. */
  efConstruction?: number;
  /** Candidate list size while searching; each search uses max(efSearch, k). Default 128. */
  efSearch?: number;
  /** Seed for hnswlib's level generator: same seed and insertion order, same graph. Default 100. */
  seed?: number;
}

/**
 * Defaults, measured on clustered 384-d vectors (100 centroids plus Gaussian noise; 10k in
 * test/index-hnsw.test.ts, 100k in a one-off run of the same corpus; Node, wasm without SIMD):
 * - m = 16: the usual sweet spot for 100–1000-d embeddings; each node stores 2·m level-0 links.
 * - efConstruction = 100: at 100k it gave the same recall as 200 (0.996 vs 0.997 at ef 128)
 *   while building ~40% faster (83 s vs 136 s) — and a rebuild is what a user waits for.
 * - efSearch = 128: recall@10 1.000 at 10k and 0.996 at 100k, where 64 drops to 0.97; a
 *   search still costs < 1 ms at 100k, small next to embedding the query.
 */
export const HNSW_DEFAULTS: Readonly<Required<HnswIndexOptions>> = Object.freeze({
  m: 16,
  efConstruction: 100,
  efSearch: 128,
  seed: 100,
});

/** IDBFS mount point in hnswlib-wasm; also the name of its IndexedDB database. */
const IDBFS_DIR = '/hnswlib-index';
const IDBFS_STORE = 'FILE_DATA';
const META_DB = 'houkai-hnsw-snapshots';
const META_STORE = 'snapshots';
const SNAPSHOT_FORMAT = 1;
/** Rows per `addPoints` call: bounds the temporary copy the binding makes of the batch. */
const ADD_CHUNK = 1024;
/** Largest up-front slot reservation (~440 MB of wasm memory at 384 dimensions). */
const MAX_INITIAL_CAPACITY = 262_144;
/** Ceiling for waiting on one IDBFS sync; a sync that never reports counts as failed. */
const SYNC_TIMEOUT_MS = 120_000;

/** What we persist next to the index file. */
interface SnapshotMeta {
  format: number;
  file: string;
  generation: number;
  dim: number;
  /** Live labels at save time. */
  live: number;
  /** hnswlib element count (live + deleted slots) at save time. */
  slots: number;
  byteLength: number;
  checksum: string;
  savedAt: number;
}

/** Creates HNSW indexes; `name` keys the snapshot. */
export function createHnswIndexFactory(options: HnswIndexOptions = {}): VectorIndexFactory {
  const params = resolveParams(options);
  return async ({ name, dim, capacity }) => {
    if (typeof name !== 'string' || name === '') throw invalid('name must be a non-empty string', { field: 'name' });
    if (!Number.isInteger(dim) || dim < 1) throw invalid('dim must be a positive integer', { field: 'dim' });
    const lib = await loadHnswlibModule();
    // `capacity` is a hint; the index grows on demand, so cap the up-front reservation.
    const initial = Math.min(MAX_INITIAL_CAPACITY, Math.max(16, Math.floor(Number(capacity) || 0)));
    return new HnswIndex(lib, name, dim, initial, params);
  };
}

/**
 * Deletes the snapshot stored under `name` without creating an index (used when a whole store
 * is deleted). Does not load the wasm module if nothing has loaded it yet.
 */
export async function dropHnswSnapshot(name: string): Promise<void> {
  const file = snapshotFileName(name);
  const loaded = peekHnswlibModule();
  if (loaded) {
    const lib = await loaded.catch(() => undefined);
    if (lib) {
      await withFs(lib, () => dropFiles(lib, file));
      return;
    }
  }
  await dropRecords(file);
}

/**
 * The snapshot file for a store name: a readable, path-safe prefix plus a hash of the exact
 * name, so distinct names never share a file ('a/b' and 'a_b' sanitise alike).
 */
export function snapshotFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 64) || 'index';
  return `houkai-${safe}-${fnv1a(name)}.hnsw`;
}

function resolveParams(options: HnswIndexOptions): Required<HnswIndexOptions> {
  const p = { ...HNSW_DEFAULTS, ...stripUndefined(options) };
  const check = (value: number, field: string, min: number, max: number): void => {
    if (!Number.isInteger(value) || value < min || value > max) {
      throw invalid(`${field} must be an integer in [${min}, ${max}]`, { field });
    }
  };
  check(p.m, 'm', 2, 100);
  check(p.efConstruction, 'efConstruction', 1, 10_000);
  check(p.efSearch, 'efSearch', 1, 100_000);
  check(p.seed, 'seed', 0, 0xffff_ffff);
  return p;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

type Native = InstanceType<HnswlibModule['HierarchicalNSW']> & { delete(): void };

class HnswIndex implements VectorIndex {
  readonly kind = 'hnsw' as const;
  private native: Native;
  /** Labels searchable now. */
  private live = new Set<number>();
  /** Labels the graph still holds, marked deleted (their slots get reused). */
  private deleted = new Set<number>();
  private ef = -1;
  private disposed = false;
  private readonly file: string;

  constructor(
    private readonly lib: HnswlibModule,
    readonly name: string,
    readonly dim: number,
    private readonly initialCapacity: number,
    private readonly params: Required<HnswIndexOptions>,
  ) {
    this.file = snapshotFileName(name);
    this.native = this.fresh();
  }

  size(): number {
    return this.live.size;
  }

  has(label: number): boolean {
    return this.live.has(label);
  }

  add(labels: number[], vectors: Float32Array[]): void {
    this.alive();
    checkBatch(labels, vectors, this.dim);
    // Last write wins within a batch, as it would across batches.
    const batch = new Map<number, Float32Array>();
    for (let i = 0; i < labels.length; i++) batch.set(labels[i]!, vectors[i]!);

    const updates: number[] = [];
    const fresh: number[] = [];
    for (const label of batch.keys()) {
      if (this.live.has(label)) updates.push(label);
      else if (this.deleted.has(label)) {
        // hnswlib refuses to update a deleted label while slot reuse is on: unmark, then update.
        this.native.unmarkDelete(label);
        this.deleted.delete(label);
        this.live.add(label);
        updates.push(label);
      } else fresh.push(label);
    }
    this.addChunks(updates, batch, false);
    const hadDeleted = this.deleted.size > 0;
    this.addChunks(fresh, batch, true);
    for (const label of fresh) this.live.add(label);
    // Reused slots dropped their old labels from the graph; the binding knows which.
    if (hadDeleted && fresh.length > 0) this.deleted = new Set(this.native.getDeletedLabels());
  }

  remove(labels: number[]): void {
    this.alive();
    const doomed: number[] = [];
    for (const label of labels) {
      if (!this.live.has(label)) continue;
      this.live.delete(label);
      this.deleted.add(label);
      doomed.push(label);
    }
    if (doomed.length > 0) this.native.markDeleteItems(doomed);
  }

  search(query: Float32Array, k: number, filter?: (label: number) => boolean): IndexHit[] {
    this.alive();
    const live = this.live.size;
    const want = Math.min(checkQuery(query, k, this.dim), live);
    if (want === 0) return [];
    const allow = filter === undefined ? undefined : (label: number): boolean => Boolean(filter(label));
    let ef = Math.max(this.params.efSearch, want);
    let result = this.knn(query, want, ef, allow);
    if (allow !== undefined && result.neighbors.length < want) {
      // A selective filter starves the candidate list. Widen ef until we have as many hits as
      // the filter admits (or have looked at everything).
      let admitted = 0;
      for (const label of this.live) if (allow(label) && ++admitted >= want) break;
      while (result.neighbors.length < admitted && ef < live) {
        ef = Math.min(live, ef * 4);
        result = this.knn(query, want, ef, allow);
      }
    }
    const hits: IndexHit[] = [];
    for (let i = 0; i < result.neighbors.length; i++) {
      // Clamped: float rounding puts identical vectors a hair past 1.
      hits.push({ label: result.neighbors[i]!, similarity: Math.max(-1, Math.min(1, 1 - result.distances[i]!)) });
    }
    // hnswlib orders by distance only; make exact ties deterministic like the exact index.
    hits.sort((a, b) => b.similarity - a.similarity || a.label - b.label);
    return hits;
  }

  clear(): void {
    this.alive();
    this.native.delete();
    this.native = this.fresh();
    this.live = new Set();
    this.deleted = new Set();
  }

  async saveSnapshot(generation: number): Promise<boolean> {
    this.alive();
    if (!Number.isSafeInteger(generation) || generation < 0) {
      throw invalid('generation must be a non-negative integer', { field: 'generation' });
    }
    return withFs(this.lib, async () => {
      if (this.disposed) return false;
      try {
        const live = this.live.size;
        const slots = this.native.getCurrentCount();
        const synced = nextSync(this.lib);
        // Serialises into the in-memory FS (synchronous, the only part that blocks searches)
        // and starts the IDBFS write sync, whose outcome `synced` reports.
        this.native.writeIndex(this.file);
        if (!(await synced)) return false;
        const bytes = await readStoredFile(this.file);
        if (!bytes) return false;
        const meta: SnapshotMeta = {
          format: SNAPSHOT_FORMAT,
          file: this.file,
          generation,
          dim: this.dim,
          live,
          slots,
          byteLength: bytes.byteLength,
          checksum: await snapshotChecksum(bytes),
          savedAt: Date.now(),
        };
        await metaRequest('readwrite', (store) => store.put(meta, this.file));
        return true;
      } catch {
        return false;
      }
    });
  }

  async loadSnapshot(): Promise<number | null> {
    this.alive();
    return withFs(this.lib, async () => {
      if (this.disposed) return null;
      try {
        const meta = (await metaRequest('readonly', (store) => store.get(this.file))) as SnapshotMeta | undefined;
        if (!isMeta(meta) || meta.file !== this.file || meta.dim !== this.dim) return null;
        const bytes = await readStoredFile(this.file);
        if (!bytes || bytes.byteLength !== meta.byteLength) return null;
        if ((await snapshotChecksum(bytes)) !== meta.checksum) return null;
        // Bring the in-memory FS in line with IndexedDB (it holds whatever was there at module
        // start or our last save), then let hnswlib read that file.
        if (!(await sync(this.lib, true))) return null;
        const loaded = new this.lib.HierarchicalNSW('cosine', this.dim, '') as Native;
        try {
          loaded.readIndex(this.file, capacityFor(Math.max(this.initialCapacity, meta.slots + 1)));
          const used = loaded.getUsedLabels();
          if (
            loaded.getCurrentCount() !== meta.slots ||
            loaded.getNumDimensions() !== this.dim ||
            used.length !== meta.live
          ) {
            loaded.delete();
            return null;
          }
          if (this.disposed) {
            loaded.delete();
            return null;
          }
          this.native.delete();
          this.native = loaded;
          this.live = new Set(used);
          this.deleted = new Set(loaded.getDeletedLabels());
          this.ef = -1;
          return meta.generation;
        } catch {
          loaded.delete();
          return null;
        }
      } catch {
        return null;
      }
    });
  }

  async dropSnapshot(): Promise<void> {
    await withFs(this.lib, () => dropFiles(this.lib, this.file));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.native.delete();
    this.live = new Set();
    this.deleted = new Set();
  }

  private fresh(): Native {
    const native = new this.lib.HierarchicalNSW('cosine', this.dim, '') as Native;
    native.initIndex(this.initialCapacity, this.params.m, this.params.efConstruction, this.params.seed);
    this.ef = -1;
    return native;
  }

  private knn(query: Float32Array, k: number, ef: number, filter: ((label: number) => boolean) | undefined) {
    if (ef !== this.ef) {
      this.native.setEfSearch(ef);
      this.ef = ef;
    }
    return this.native.searchKnn(query, k, filter);
  }

  /** `addPoints` in chunks, growing capacity first (the binding checks count + batch ≤ max). */
  private addChunks(labels: number[], vectors: Map<number, Float32Array>, replaceDeleted: boolean): void {
    for (let start = 0; start < labels.length; start += ADD_CHUNK) {
      const chunk = labels.slice(start, start + ADD_CHUNK);
      this.reserve(this.native.getCurrentCount() + chunk.length);
      this.native.addPoints(
        chunk.map((label) => vectors.get(label)!),
        chunk,
        replaceDeleted,
      );
    }
  }

  private reserve(slots: number): void {
    const max = this.native.getMaxElements();
    if (slots <= max) return;
    this.native.resizeIndex(capacityFor(slots, max));
  }

  private alive(): void {
    if (this.disposed) throw new MemoryError('CLOSED', 'The index has been disposed');
  }
}

/**
 * Capacity growth: double while small, then 1.5× — each slot costs ~(4·dim + 8·m + 12) bytes
 * of wasm memory whether used or not, and resizing copies the whole level-0 block.
 */
function capacityFor(needed: number, current = 16): number {
  let cap = Math.max(16, current);
  while (cap < needed) cap = cap < 65_536 ? cap * 2 : Math.ceil(cap * 1.5);
  return cap;
}

function isMeta(value: unknown): value is SnapshotMeta {
  if (value === null || typeof value !== 'object') return false;
  const m = value as Record<string, unknown>;
  return (
    m.format === SNAPSHOT_FORMAT &&
    typeof m.file === 'string' &&
    Number.isSafeInteger(m.generation) &&
    Number.isInteger(m.dim) &&
    Number.isInteger(m.live) &&
    Number.isInteger(m.slots) &&
    Number.isInteger(m.byteLength) &&
    typeof m.checksum === 'string'
  );
}

// ---------------------------------------------------------------------------------------------
// The module's file system: one operation at a time, each sync's outcome observed.

interface FsState {
  queue: Promise<unknown>;
  waiters: ((ok: boolean) => void)[];
}

const fsStates = new WeakMap<HnswlibModule, FsState>();

type SyncHook = { setIdbfsSynced?: (ok: boolean) => void };

function fsState(lib: HnswlibModule): FsState {
  let state = fsStates.get(lib);
  if (state) return state;
  const created: FsState = { queue: Promise.resolve(), waiters: [] };
  state = created;
  const hooked = lib as unknown as SyncHook;
  const original = hooked.setIdbfsSynced;
  // The glue calls `Module.setIdbfsSynced(ok)` when an IDBFS sync settles.
  hooked.setIdbfsSynced = (ok: boolean) => {
    try {
      original?.(ok);
    } finally {
      const waiters = created.waiters.splice(0);
      for (const resolve of waiters) resolve(ok === true);
    }
  };
  // The sync the module starts while loading (IndexedDB → memory) may still be running: let it
  // settle before our first file operation.
  created.queue = untilIdle(lib);
  fsStates.set(lib, state);
  return state;
}

/** Runs `task` after every earlier file operation on this module has finished. */
function withFs<T>(lib: HnswlibModule, task: () => Promise<T>): Promise<T> {
  const state = fsState(lib);
  const run = state.queue.then(task, task);
  state.queue = run.catch(() => undefined);
  return run;
}

/** Resolves with the outcome of the next IDBFS sync (false on timeout). */
function nextSync(lib: HnswlibModule): Promise<boolean> {
  const state = fsState(lib);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      const i = state.waiters.indexOf(done);
      if (i >= 0) state.waiters.splice(i, 1);
      resolve(false);
    }, SYNC_TIMEOUT_MS);
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      resolve(ok);
    };
    state.waiters.push(done);
  });
}

/** One IDBFS sync: `populate` = IndexedDB → memory, otherwise memory → IndexedDB. */
async function sync(lib: HnswlibModule, populate: boolean): Promise<boolean> {
  const outcome = nextSync(lib);
  lib.EmscriptenFileSystemManager.syncFS(populate, undefined as unknown as () => void);
  return outcome;
}

async function untilIdle(lib: HnswlibModule): Promise<void> {
  const manager = lib.EmscriptenFileSystemManager;
  if (manager.isSynced() || typeof indexedDB === 'undefined') return;
  // Not synced yet: either still reading, or it failed before we could observe it. If we cannot
  // open its database ourselves it failed, and waiting would only delay the failures to come.
  try {
    (await openDb(IDBFS_DIR))?.close();
  } catch {
    return;
  }
  const deadline = Date.now() + 15_000;
  while (!manager.isSynced() && Date.now() < deadline) await sleep(10);
}

async function dropFiles(lib: HnswlibModule, file: string): Promise<void> {
  await dropRecords(file);
  // The in-memory copy would be written back by the next sync; a populate sync removes local
  // files that IndexedDB no longer has.
  await sync(lib, true);
}

async function dropRecords(file: string): Promise<void> {
  if (typeof indexedDB === 'undefined') return;
  await metaRequest('readwrite', (store) => store.delete(file));
  await idbfsRequest('readwrite', (store) => store.delete(`${IDBFS_DIR}/${file}`));
}

// ---------------------------------------------------------------------------------------------
// Raw IndexedDB: short-lived connections, so nothing of ours ever blocks a version change.

function openDb(name: string, upgrade?: (db: IDBDatabase) => void): Promise<IDBDatabase | null> {
  return new Promise((resolve, reject) => {
    const request = upgrade ? indexedDB.open(name, 1) : indexedDB.open(name);
    request.onupgradeneeded = () => {
      if (upgrade) upgrade(request.result);
    };
    request.onsuccess = () => {
      const db = request.result;
      db.onversionchange = () => db.close();
      resolve(db);
    };
    request.onerror = () => reject(request.error ?? new Error(`Cannot open ${name}`));
    request.onblocked = () => resolve(null);
  });
}

function run<T>(db: IDBDatabase, storeName: string, mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(storeName, mode);
    let value: T;
    const request = op(tx.objectStore(storeName));
    request.onsuccess = () => {
      value = request.result;
    };
    tx.oncomplete = () => resolve(value);
    tx.onerror = () => reject(tx.error ?? request.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

async function metaRequest<T>(mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T | undefined> {
  const db = await openDb(META_DB, (d) => {
    if (!d.objectStoreNames.contains(META_STORE)) d.createObjectStore(META_STORE);
  });
  if (!db) throw new MemoryError('STORAGE_FAILURE', 'The snapshot database is blocked');
  try {
    return await run(db, META_STORE, mode, op);
  } finally {
    db.close();
  }
}

/** Reaches into IDBFS's own database; undefined when it does not exist (yet). */
async function idbfsRequest<T>(mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T | undefined> {
  const db = await openDb(IDBFS_DIR);
  if (!db) return undefined;
  try {
    if (!db.objectStoreNames.contains(IDBFS_STORE)) return undefined;
    return await run(db, IDBFS_STORE, mode, op);
  } finally {
    db.close();
  }
}

/** The file's bytes as IDBFS stored them, or null when absent. */
async function readStoredFile(file: string): Promise<Uint8Array | null> {
  const record = (await idbfsRequest('readonly', (store) => store.get(`${IDBFS_DIR}/${file}`))) as
    | { contents?: unknown }
    | undefined;
  const contents = record?.contents;
  // MEMFS hands IDBFS an Int8Array (a slice of the heap) for files written in one go and a
  // Uint8Array for files it grew; either way we want the bytes.
  if (!ArrayBuffer.isView(contents)) return null;
  return new Uint8Array(contents.buffer, contents.byteOffset, contents.byteLength);
}

// ---------------------------------------------------------------------------------------------
// Checksums

/**
 * murmur3-style 32-bit hash of the bytes, computed in slices with a yield between them so a big
 * snapshot does not stall searches. It guards against torn or overwritten records, not malice.
 * Exported for tests (to forge a descriptor for a damaged file) and tooling.
 */
export async function snapshotChecksum(bytes: Uint8Array): Promise<string> {
  const words = bytes.byteLength >>> 2;
  const view =
    bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, words) : new Uint32Array(bytes.slice(0, words * 4).buffer);
  const SLICE = 2 << 20; // words (8 MiB) per slice
  let h = 0x9747b28c ^ bytes.byteLength;
  for (let start = 0; start < words; start += SLICE) {
    const end = Math.min(words, start + SLICE);
    for (let i = start; i < end; i++) {
      let k = Math.imul(view[i]!, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      h ^= Math.imul(k, 0x1b873593);
      h = (h << 13) | (h >>> 19);
      h = (Math.imul(h, 5) + 0xe6546b64) | 0;
    }
    if (end < words) await sleep(0);
  }
  for (let i = words * 4; i < bytes.byteLength; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return `m3:${(h >>> 0).toString(16).padStart(8, '0')}`;
}

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
