/**
 * `houkai-web/local`: the in-process composition root. It wires the Dexie storage, a vector
 * index and an embedder into the core store, in a page, a worker, an extension or Node (given
 * an IndexedDB implementation such as fake-indexeddb).
 *
 * @example
 * ```ts
 * import { createMemory } from 'houkai-web/local';
 * const memory = await createMemory({ name: 'agent', embedder: 'use-lite' });
 * await memory.remember('We lint with ESLint and format with Prettier', { type: 'procedural' });
 * const [hit] = await memory.recall('which linter do we use?');
 * hit.memory.text; // 'We lint with ESLint and format with Prettier'
 * ```
 */
import { safeLog, type Log } from './core/log.ts';
import { setHnswlibLog } from './adapters/hnswlib-loader.ts';
import { databaseName, deleteDexieStorage, openDexieStorage, SCHEMA_VERSION, type DexieStorageOptions } from './adapters/storage-dexie.ts';
import { readStorageInfo } from './adapters/browser-storage.ts';
import { pouchReplicas } from './adapters/sync-pouchdb.ts';
import type { SyncReplicaFactory } from './core/sync/ports.ts';
import { openDexieRegistry } from './adapters/registry-dexie.ts';
import { createDexieCatalog } from './adapters/store-catalog.ts';
import { checkStoreName, type StoreCatalog, type StoreInfo } from './core/catalog.ts';
import { MemoryError, invalid } from './core/errors.ts';
import { randomIds, systemClock } from './adapters/system.ts';
import { holdStore, withStoreAlone } from './adapters/store-lock.ts';
import { useFflateGzip } from './adapters/gzip-fflate.ts';
import { DEFAULT_INDEX, keptIndex, settleIndex } from './adapters/index-choice.ts';
import type { Clock, DurabilityRegistry, Embedder, IdSource, IndexBlockStore, MemoryStorage, RandomSource, VectorIndex, VectorIndexFactory } from './core/ports.ts';
import type { IndexOpenOutcome } from './core/services/index-keeper.ts';
import type { MemoryApi } from './core/api.ts';
import { openStore, type StoreOpenOptions, type StoreView } from './core/store.ts';
import type { RerankerLoader } from './core/domain/rerank.ts';
import type { IndexKind, LongRunOptions } from './core/types.ts';
import type { MoveMemoryOptions } from './local-move.ts';
import type { TransformersEmbedderOptions } from './adapters/embedder-transformers.ts';
import type { TransformersModelKey } from './adapters/model-catalog.ts';
import type { UseLiteOptions } from './adapters/use-lite-options.ts';

export * from './core/types.ts';
export type * from './core/api.ts';
export { MemoryError, ERROR_CODES, type ErrorCode } from './core/errors.ts';
export type { MoveMemoryOptions } from './local-move.ts';
export type { Embedder, EmbedOptions, VectorIndex, VectorIndexFactory, Clock, IdSource, RandomSource, MemoryStorage } from './core/ports.ts';
export { contentHash } from './core/domain/text.ts';
export { createMemoryStorage, memoryStorages } from './adapters/storage-memory.ts';
// A storage backend of your own: implement the engine port, get every storage rule from storageOver (CONTRIBUTING.md).
export { storageOver, TABLES, parseTable, MIN_KEY, MAX_KEY } from './core/storage/index.ts';
export type { StorageEngine, StorageOptions, StorageTx, TxMode, Query, KeyRange, Key, KeyEntry, TableName, TableSpec, IndexSpec } from './core/storage/index.ts';
export { pouchReplicas } from './adapters/sync-pouchdb.ts';
export type { SyncReplica, SyncReplicaFactory } from './core/sync/ports.ts';
export type { MoveResult, StoreInfo, StoreCatalog, StorePlace } from './core/catalog.ts';
export { scopeMemory, SCOPE_POLICY, type ConnectionScope, type Access, type ApiMethod, type MethodPolicy } from './core/scope/index.ts';

export type EmbedderChoice = 'auto' | 'minilm' | 'bge-small' | 'use-lite' | Embedder;

export interface CreateMemoryOptions extends LongRunOptions {
  /** Store name; stores are isolated from each other. Default 'default'. */
  name?: string;
  /**
   * Where the memories live. 'indexeddb' (the default): IndexedDB through Dexie (`indexedDB`,
   * `IDBKeyRange` below). 'opfs' (browsers, in a dedicated worker only): one SQLite file a store in
   * the origin-private file system, through SQLite's WebAssembly build (`@sqlite.org/sqlite-wasm`,
   * an optional peer), with the `hnsw-i8` index unless told otherwise — a different store from
   * the IndexedDB one of the same name. Or a factory of `MemoryStorage` for the store's name:
   * `memoryStorages()` keeps them in this process's memory (tests, short-lived agents). A store
   * on OPFS or custom storage keeps no record in the origin's registry of stores.
   */
  storage?: 'indexeddb' | 'opfs' | ((name: string) => MemoryStorage | Promise<MemoryStorage>);
  /**
   * Node: keep the store in a folder that outlives the process — one SQLite file a store
   * (`<dir>/<name>.houkai.sqlite`, WAL), its rows and its int8 index's blocks, through
   * better-sqlite3 (an optional peer: `npm install better-sqlite3@12`; without it, a
   * STORAGE_FAILURE naming the install). Not with `storage`. A store in a folder keeps the
   * `hnsw-i8` index unless told otherwise.
   */
  dir?: string;
  /**
   * 'minilm' (all-MiniLM-L6-v2 on transformers.js), 'bge-small' (bge-small-en-v1.5, a
   * query/passage model), 'use-lite' (bundled Universal Sentence Encoder lite, no download), your
   * own `Embedder`, or 'auto' (default): the embedder the store was made with; for a new store
   * bge-small when its files load, else MiniLM, else use-lite (one warning line says which and why).
   */
  embedder?: EmbedderChoice;
  /**
   * Where and how transformers.js loads its models (both MiniLM and bge-small): `localModelPath`
   * (a folder in Node, a URL path in browsers, holding `Xenova/<model>/…` as `npm run models`
   * lays it out), device, wasm paths… Nothing is downloaded from another origin unless you set
   * `allowRemoteModels` or `remoteHost`.
   */
  transformers?: TransformersEmbedderOptions;
  /** Options for MiniLM only (over `transformers`). */
  minilm?: TransformersEmbedderOptions;
  /** Options for bge-small only (over `transformers`). */
  bgeSmall?: TransformersEmbedderOptions;
  /** Options for the use-lite embedder (model URL, wasm paths…). */
  useLite?: UseLiteOptions;
  /**
   * 'hnsw' (hnswlib-wasm, float32: the default for a new store), 'hnsw-i8' (our int8 HNSW kernel
   * with SIMD, block snapshots in the store's database: a quarter of the memory, for large
   * stores), 'exact' (brute force: tiny stores, and the oracle in tests), or a factory. A store
   * keeps the index it was last opened with when this is left out; given another, the store
   * moves to it (rebuilt from the stored vectors at open, with `index-rebuild` progress) and the
   * old index's files are deleted.
   */
  index?: 'hnsw' | 'exact' | 'hnsw-i8' | VectorIndexFactory;
  /**
   * Conflict detection at write time: the default policy ('warn'), the cosine gate (0.80), and
   * in-process hooks (a contradiction function, a seed-002 classifier; both may be async).
   */
  conflicts?: StoreOpenOptions['conflicts'];
  /**
   * Recall's second stage for every call that does not say otherwise (off unless given):
   * `{ model }`, a cross-encoder under the models folder (loaded at open, with `transformers`'
   * options), or `{ reranker }`, your `(query, texts) => scores`; with `top` (≤ 50), `weight` and
   * `timeoutMs`. See docs/ranking.md.
   */
  rerank?: StoreOpenOptions['rerank'];
  /** Journal attribution of this store's writes: 'lib' (default), 'ui', 'agent:<name>'… */
  actor?: string;
  /** Scheduled maintenance (decay prune, TTL purge, trash retention, optional reflection); off unless given. The worker turns it on. */
  maintenance?: StoreOpenOptions['maintenance'];
  /** `{ maxMemories, policy: 'decay' | 'lru' | 'reject' }`: a cap enforced on write. */
  quota?: StoreOpenOptions['quota'];
  /** `{ keepDays = 90, keepLast = 1000 }`: what journal compaction (`compactJournal`, the daily maintenance job) keeps. */
  journalRetention?: StoreOpenOptions['journalRetention'];
  /** What to do when the store's vectors come from another embedder. Default 'error'. */
  onEmbedderChange?: StoreOpenOptions['onEmbedderChange'];
  /** Quiet period before the index snapshot is persisted after writes (ms). Default 2000. */
  snapshotDelayMs?: number;
  /** Pacing of background HNSW insertion after imports and at open (chunk, slice and pause lengths, pending cap). */
  indexDrain?: StoreOpenOptions['indexDrain'];
  /** How imports prove they are alive to other owners of the store: `{ ttlSeconds = 30, heartbeatSeconds = 5, locks }` (`locks: null` uses leases only). */
  importLease?: StoreOpenOptions['importLease'];
  /**
   * The replication engine `sync()` uses: default PouchDB (CouchDB's protocol; its replica in
   * IndexedDB in browsers, in memory in Node), loaded on the first `sync()`. `false` turns sync
   * off for this store (`sync()` then refuses).
   */
  sync?: SyncReplicaFactory | false;
  /**
   * Where diagnostics go (the embedder and device chosen, a fallback taken): `(level, message) =>
   * void`, level 'debug' | 'info' | 'warn' | 'error'. Default: warnings and errors to stderr in
   * Node (nothing on stdout, ever), the console in browsers.
   */
  log?: Log;
  /** IndexedDB implementation for Node (`fake-indexeddb`); defaults to the global one. */
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
  clock?: Clock;
  ids?: IdSource;
  /**
   * Randomness for sampling (the confidence calibration). Default: numbers seeded by the store's
   * size, so two stores holding the same memories sample (and so judge and order recalls) alike.
   */
  random?: RandomSource;
}

export type LocalMemory = MemoryApi & Pick<StoreView, 'call' | 'asActor' | 'watch'> & {
  readonly name: string;
  readonly embedder: Embedder;
  /** How the vector index came up: from its snapshot (plus a replay of later writes), rebuilt, or waiting for reindex(). */
  readonly opened: IndexOpenOutcome | 'pending-reindex';
};

const USE_LITE_ID = 'universal-sentence-encoder-lite';

async function loadTransformers(key: TransformersModelKey, options: CreateMemoryOptions): Promise<Embedder> {
  const [{ createTransformersEmbedder, isNodeRuntime }, { TRANSFORMERS_MODELS }] = await Promise.all([
    import('./adapters/embedder-transformers.ts'),
    import('./adapters/model-catalog.ts'),
  ]);
  const id = TRANSFORMERS_MODELS[key].id;
  const own = { ...options.transformers, ...(key === 'minilm' ? options.minilm : options.bgeSmall) };
  // Node with no folder given: the files where `npm run models` / `npx houkai-web models` put them.
  if (own.localModelPath === undefined && !own.allowRemoteModels && isNodeRuntime()) {
    const { findLocalModelPath } = await import('./adapters/node-model-path.ts');
    const found = await findLocalModelPath(id);
    if (found) own.localModelPath = found;
  }
  return createTransformersEmbedder({ model: id, log: safeLog(options.log), ...(options.onProgress ? { onProgress: options.onProgress } : {}), ...own });
}

const toldAboutDefault = new Set<string>();

async function loadUseLite(options: CreateMemoryOptions): Promise<Embedder> {
  const { createUseLiteEmbedder } = await import('./adapters/embedder-use-lite.ts');
  return createUseLiteEmbedder({
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...options.useLite,
  });
}

/** Resolves the embedder choice; 'auto' prefers what the store already holds. */
export async function resolveEmbedder(choice: EmbedderChoice, options: CreateMemoryOptions, recordedId?: string): Promise<Embedder> {
  if (typeof choice === 'object' && choice !== null) {
    if (typeof choice.embed !== 'function' || typeof choice.id !== 'string') {
      throw invalid('embedder must implement { id, dim, embed(texts) }', { field: 'embedder' });
    }
    return choice;
  }
  if (choice === 'minilm' || choice === 'bge-small') return loadTransformers(choice, options);
  if (choice === 'use-lite') return loadUseLite(options);
  if (choice !== 'auto') {
    throw invalid(`embedder must be 'auto', 'minilm', 'bge-small', 'use-lite' or an Embedder — got ${JSON.stringify(choice)}`, { field: 'embedder' });
  }
  if (recordedId === USE_LITE_ID) return loadUseLite(options);
  const { knownModel } = await import('./adapters/model-catalog.ts');
  const recorded = recordedId ? knownModel(recordedId) : undefined;
  // A store made with a known model reopens with it, and fails loudly when its files are missing.
  if (recorded) return loadTransformers(recorded.key, options);
  // A new store: bge-small (the default), else MiniLM, else the bundled use-lite — each step
  // only when the better model's files cannot be loaded, said once, in one line, with the reason.
  const skipped: string[] = [];
  for (const key of DEFAULT_MODEL_ORDER) {
    try {
      const embedder = await loadTransformers(key, options);
      if (skipped.length) tellOnce(options, `[houkai] ${skipped.join('; ')}: using ${key === 'minilm' ? 'MiniLM' : key}. ${provisionHint()}`);
      return embedder;
    } catch (error) {
      if (!(error instanceof MemoryError) || error.code !== 'MODEL_UNAVAILABLE') throw error;
      // A build that leaves transformers.js out on purpose (the extension's) runs use-lite quietly.
      if (error.details.bundled === false) return loadUseLite(options);
      const missingLibrary = /loading @huggingface\/transformers/.test(error.message);
      if (missingLibrary) {
        tellOnce(options, '[houkai] bge-small and MiniLM need @huggingface/transformers, which is not installed: using the bundled use-lite model. For them: `npm install @huggingface/transformers` and `npx houkai-web models ./models`.');
        return loadUseLite(options);
      }
      skipped.push(`${key === 'minilm' ? 'MiniLM' : key} ${whySkipped(error)}`);
    }
  }
  tellOnce(options, `[houkai] ${skipped.join('; ')}: using the bundled use-lite model. ${provisionHint()}`);
  return loadUseLite(options);
}

/** Why a model the default order tried did not load, in a few words: its files are missing, or what failed. */
function whySkipped(error: MemoryError): string {
  const cause = String(error.details['cause'] ?? error.message);
  if (/could not locate|not find|no such file|ENOENT|\b404\b|not found/i.test(cause)) return `files not found${isNode() ? ' in ./public/models or ./models' : ''}`;
  return `could not load (${cause.length > 160 ? `${cause.slice(0, 159)}…` : cause})`;
}

/** The models a new store tries, best first (the product's default is the first). */
export const DEFAULT_MODEL_ORDER: readonly TransformersModelKey[] = ['bge-small', 'minilm'];

const isNode = (): boolean => typeof process !== 'undefined' && Boolean(process.versions?.node);

function provisionHint(): string {
  return isNode()
    ? 'Provision them with `npx houkai-web models ./models` (or pass transformers.localModelPath).'
    : 'Serve them under the models path (`npx houkai-web models public/models`).';
}

/** Each line about the default model's fallback once a process (Node); browsers say it in the console each time. */
function tellOnce(options: CreateMemoryOptions, line: string): void {
  if (isNode()) {
    if (toldAboutDefault.has(line)) return;
    toldAboutDefault.add(line);
  }
  safeLog(options.log)('warn', line);
}

/** Deletes what an index the store no longer uses persisted: hnswlib's snapshot file, or the int8 blocks in the store's database. */
async function dropIndexFiles(kind: IndexKind, name: string, dbOptions: DexieStorageOptions): Promise<void> {
  if (kind === 'hnsw') await (await import('./adapters/index-hnsw.ts')).dropHnswSnapshot(name);
  if (kind === 'hnsw-i8') await withBlocks(name, dbOptions, (blocks) => blocks.clear());
}

/** A store in SQLite keeps only the int8 index's blocks (beside its rows); nothing of it is in IndexedDB. */
async function dropSqlIndexFiles(kind: IndexKind, blocks: () => IndexBlockStore): Promise<void> {
  if (kind !== 'hnsw-i8') return;
  const store = blocks();
  try {
    await store.clear();
  } finally {
    store.close();
  }
}

/** The int8 index's block store in the store's own database, for one call. */
async function withBlocks<T>(name: string, dbOptions: DexieStorageOptions, use: (blocks: IndexBlockStore) => Promise<T>): Promise<T> {
  const { idbBlockStore } = await import('./adapters/index-blocks-idb.ts');
  const blocks = idbBlockStore({ database: databaseName(name), ...dbOptions });
  try {
    return await use(blocks);
  } finally {
    blocks.close();
  }
}

async function indexFactory(choice: CreateMemoryOptions['index'], dbOptions: DexieStorageOptions): Promise<VectorIndexFactory> {
  if (typeof choice === 'function') return choice;
  if (choice === 'hnsw-i8') {
    const [{ createHnswI8IndexFactory }, { idbBlockStore }] = await Promise.all([import('./adapters/index-hnsw-i8.ts'), import('./adapters/index-blocks-idb.ts')]);
    // The blocks live in the store's own database (its `indexBlocks` table, schema v9).
    return createHnswI8IndexFactory({ blocks: (name) => idbBlockStore({ database: databaseName(name), ...dbOptions }) });
  }
  if (choice === 'hnsw') {
    const { createHnswIndexFactory } = await import('./adapters/index-hnsw.ts');
    return createHnswIndexFactory();
  }
  if (choice === 'exact') {
    const { createExactIndex } = await import('./adapters/index-exact.ts');
    return async ({ dim }) => createExactIndex({ dim });
  }
  throw invalid(`index must be 'hnsw', 'hnsw-i8', 'exact' or a factory — got ${JSON.stringify(choice)}`, { field: 'index' });
}

/**
 * The loader of cross-encoders for `rerank: { model }` (with `transformers`' options). The adapter
 * is imported on the first load only, so a store that never reranks with a model costs nothing at
 * open; the store's own model is loaded now, so a missing one fails the open. A build without
 * transformers.js (the extension's) fails such a load with MODEL_UNAVAILABLE; a host reranker
 * still works there.
 */
async function rerankLoader(options: CreateMemoryOptions): Promise<{ load: RerankerLoader; dispose(): Promise<void> }> {
  // Where the files are and how the runtime runs, from `transformers`; nothing of the embedder's own (its dtype, batch, pooling).
  const t = options.transformers ?? {};
  const env = Object.fromEntries(
    (['remoteHost', 'remotePathTemplate', 'localModelPath', 'allowRemoteModels', 'allowLocalModels', 'cacheDir', 'wasmPaths', 'threads', 'device'] as const).filter((k) => t[k] !== undefined).map((k) => [k, t[k]]),
  );
  let adapter: Promise<{ load: RerankerLoader; dispose(): Promise<void> }> | undefined;
  const loader = () => (adapter ??= import('./adapters/reranker-transformers.ts').then(({ crossEncoderLoader }) => crossEncoderLoader({ ...env, log: safeLog(options.log) })));
  const lazy = {
    load: async (model: string) => (await loader()).load(model),
    dispose: async () => {
      if (adapter) await (await adapter.catch(() => null))?.dispose();
    },
  };
  const model = options.rerank && typeof options.rerank === 'object' ? options.rerank.model : undefined;
  if (typeof model === 'string' && model.trim() !== '') await lazy.load(model.trim());
  return lazy;
}

/**
 * Opens (or creates) a named memory store in this process.
 * @throws MemoryError EMBEDDER_MISMATCH / DIMENSION_MISMATCH when the store was made by another
 *   embedder (pass `onEmbedderChange: 'reindex'` and call `reindex()`), MODEL_UNAVAILABLE when
 *   the model cannot be loaded, INVALID_ARGUMENT for bad options.
 */
export async function createMemory(options: CreateMemoryOptions = {}): Promise<LocalMemory> {
  if (options === null || typeof options !== 'object') throw invalid('options must be an object', { field: 'options' });
  const name = options.name ?? 'default';
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
    throw invalid('name must be a non-empty string of at most 200 characters', { field: 'name' });
  }
  if (options.log !== undefined && typeof options.log !== 'function') throw invalid('log must be a function (level, message) => void', { field: 'log' });
  if (options.log) setHnswlibLog(safeLog(options.log));
  const dbOptions: DexieStorageOptions = {
    ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
    ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
  };
  useFflateGzip();
  if (options.storage !== undefined && options.storage !== 'indexeddb' && options.storage !== 'opfs' && typeof options.storage !== 'function') {
    throw invalid("storage must be 'indexeddb', 'opfs' or a function of the store name", { field: 'storage' });
  }
  if (options.sync !== undefined && options.sync !== false && typeof options.sync !== 'function') throw invalid('sync must be a replica factory or false', { field: 'sync' });
  const onProgress = options.onProgress;
  const upgradeProgress: Pick<DexieStorageOptions, 'onUpgradeProgress'> = onProgress ? { onUpgradeProgress: (done, total) => onProgress({ kind: 'upgrade', done, total }) } : {};
  if (options.dir !== undefined && (typeof options.dir !== 'string' || options.dir.trim() === '')) throw invalid('dir must be a folder path', { field: 'dir' });
  if (options.dir !== undefined && options.storage !== undefined && options.storage !== 'indexeddb') throw invalid('dir and storage cannot both be given', { field: 'dir' });
  // The name is held (shared) while the store is open, so no other worker moves it meanwhile.
  const releaseName = await holdStore(name);
  try {
    return await openMemory(name, options, dbOptions, onProgress, upgradeProgress, releaseName);
  } catch (error) {
    await releaseName();
    throw error;
  }
}

async function openMemory(
  name: string,
  options: CreateMemoryOptions,
  dbOptions: DexieStorageOptions,
  onProgress: CreateMemoryOptions['onProgress'],
  upgradeProgress: Pick<DexieStorageOptions, 'onUpgradeProgress'>,
  releaseName: () => Promise<void>,
): Promise<LocalMemory> {
  const inDir = options.dir === undefined ? null : (await import('./adapters/sql/node-store.ts')).openDirStore(options.dir, name);
  if (options.storage === 'opfs' && options.index === 'hnsw') {
    throw invalid("An OPFS store keeps the 'hnsw-i8' or 'exact' index (hnswlib's file lives in IndexedDB)", { field: 'index' });
  }
  const inOpfs = options.storage === 'opfs' ? await (await import('./adapters/sql/opfs-store.ts')).openOpfsStore(name) : null;
  // A store in SQLite (a folder in Node, OPFS in a browser): its int8 index's blocks beside its rows.
  const inSql = inDir ?? inOpfs;
  const ownStorage = typeof options.storage === 'function' ? options.storage : null;
  const custom = ownStorage !== null || inSql !== null;
  const storage = inSql ? inSql.storage : ownStorage ? await ownStorage(name) : await openDexieStorage(name, { ...dbOptions, ...upgradeProgress });
  let index: VectorIndex | undefined;
  let crossEncoders: Awaited<ReturnType<typeof rerankLoader>> | null = null;
  // The registry of stores is a witness only: a store still opens when it cannot be used. It
  // watches IndexedDB stores; a store on other storage is not one of them.
  const registry: DurabilityRegistry | null = custom ? null : await openDexieRegistry(dbOptions).catch(() => null);
  try {
    // Stored terms from before today's definition of the lexical terms are derived again first
    // (core/storage/lexical-rederive.ts): a page a transaction, reported as an upgrade.
    // (A new store has no metadata row yet, and nothing to derive.)
    await storage.rederiveLexicalTerms(onProgress ? { onProgress: (done, total) => onProgress({ kind: 'upgrade', done, total }) } : {});
    const recorded = await storage.readMeta();
    const embedder = await resolveEmbedder(options.embedder ?? 'auto', options, recorded?.embedderId);
    // A capacity hint only (the index grows): the metadata row's count avoids a linear count().
    const count = recorded?.lexicalDocs ?? (await storage.count());
    // The index the store is kept in (a store from before the record: int8 blocks in its database say hnsw-i8).
    const kept = await keptIndex(storage, custom ? null : () => withBlocks(name, dbOptions, async (blocks) => (await blocks.readManifest()) !== undefined));
    onProgress?.({ kind: 'index-open', phase: 'start' });
    // A store in SQLite: the int8 index, its blocks in SQLite too.
    // hnswlib's file lives in IndexedDB: a store moved to OPFS from hnswlib's index moves to the int8 one.
    const keptKind = inOpfs && kept?.kind === 'hnsw' ? 'hnsw-i8' : kept?.kind;
    const factory = inSql && (options.index ?? keptKind ?? 'hnsw-i8') === 'hnsw-i8'
      ? (await import('./adapters/index-hnsw-i8.ts')).createHnswI8IndexFactory({ blocks: inSql.blocks })
      : await indexFactory(options.index ?? kept?.kind ?? DEFAULT_INDEX, dbOptions);
    index = await factory({ name, dim: embedder.dim, capacity: Math.max(1024, Math.ceil(count * 1.25)) });
    crossEncoders = await rerankLoader(options);
    const store = await openStore(
      {
        name,
        storage,
        index,
        embedder,
        schemaVersion: SCHEMA_VERSION,
        registry,
        persisted: async () => (await readStorageInfo()).persisted,
        storageInfo: readStorageInfo,
        onClosed: () => {
          registry?.close();
          void crossEncoders?.dispose();
          return releaseName();
        },
        crossEncoders: crossEncoders?.load ?? null,
        replicas: options.sync === false ? null : (options.sync ?? (inDir ? inDir.replicas() : pouchReplicas())),
        clock: options.clock ?? systemClock,
        ids: options.ids ?? randomIds,
        random: options.random ?? null,
      },
      {
        ...(options.onEmbedderChange ? { onEmbedderChange: options.onEmbedderChange } : {}),
        ...(options.conflicts ? { conflicts: options.conflicts } : {}),
        ...(options.rerank ? { rerank: options.rerank } : {}),
        ...(options.actor ? { actor: options.actor } : {}),
        ...(options.maintenance ? { maintenance: options.maintenance } : {}),
        ...(options.quota ? { quota: options.quota } : {}),
        ...(options.journalRetention !== undefined ? { journalRetention: options.journalRetention } : {}),
        ...(options.snapshotDelayMs !== undefined ? { snapshotDelayMs: options.snapshotDelayMs } : {}),
        ...(options.indexDrain ? { indexDrain: options.indexDrain } : {}),
        ...(options.importLease ? { importLease: options.importLease } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    // Opened on another index than it had: the move is done (rebuilt at open), the old index's files go.
    await settleIndex(storage, kept, index.kind, (kind) => (inSql ? dropSqlIndexFiles(kind, inSql.blocks) : dropIndexFiles(kind, name, dbOptions)));
    onProgress?.({ kind: 'index-open', phase: 'done' });
    return Object.defineProperties(store, {
      name: { value: name, enumerable: true },
      embedder: { value: embedder, enumerable: false },
    }) as unknown as LocalMemory;
  } catch (error) {
    index?.dispose();
    void crossEncoders?.dispose();
    storage.close();
    registry?.close();
    throw error;
  }
}

type DeleteOptions = Pick<CreateMemoryOptions, 'indexedDB' | 'IDBKeyRange' | 'index'> & { storage?: 'indexeddb' | 'opfs' };

/**
 * Deletes a closed store's database, its index snapshot and its registry record (a deliberate
 * deletion is not a loss). @throws MemoryError STORE_IN_USE (open in a tab or worker of the origin).
 */
export async function deleteMemory(name: string, options: DeleteOptions = {}): Promise<void> {
  return withStoreAlone(name, 'delete', () => dropStore(name, options));
}

/** What deleteMemory does, for a caller that holds the name alone already (a move). */
async function dropStore(name: string, options: DeleteOptions): Promise<void> {
  // A closed OPFS store: its files in the pool (in the dedicated worker that holds it).
  if (options.storage === 'opfs') return void (await (await import('./adapters/sql/opfs-store.ts')).deleteOpfsStore(name));
  const dbOptions: DexieStorageOptions = {
    ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
    ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
  };
  await deleteDexieStorage(name, dbOptions);
  const registry = await openDexieRegistry(dbOptions).catch(() => null);
  if (registry) {
    try {
      await registry.update(name, () => null);
    } finally {
      registry.close();
    }
  }
  // Whatever index the store is on now, it may have been on hnswlib before a move: its file goes too.
  const { dropHnswSnapshot } = await import('./adapters/index-hnsw.ts');
  await dropHnswSnapshot(name);
}

/**
 * Moves a closed store between IndexedDB and OPFS (in a dedicated worker): its rows, then its
 * int8 index's saved blocks, then the old copy deleted, with `{ kind: 'move', done, total }`
 * progress and a `signal` that cancels between batches (what was written is deleted; the source
 * is untouched). @throws MemoryError NOT_FOUND, STORE_EXISTS, ABORTED, STORAGE_QUOTA, STORE_IN_USE
 * (open in a tab or worker of the origin: close it there first).
 */
export async function moveMemory(name: string, to: 'opfs' | 'indexeddb', options: MoveMemoryOptions = {}): Promise<{ rows: number; index: 'copied' | 'rebuilt at next open' }> {
  const { moveStore } = await import('./local-move.ts');
  // Alone with the name: a store open anywhere in the origin (another tab's worker too) is not moved.
  return withStoreAlone(name, 'move', () => moveStore(name, to, options, (store, db) => dropStore(store, db)));
}

/**
 * The stores of this origin (IndexedDB) as a whole: list (with each one's memory count and
 * model), delete, rename. The worker serves the same through `client.stores()`,
 * `deleteStore()` and `renameStore()`, refusing stores open elsewhere (STORE_IN_USE); in
 * process, close a store before deleting or renaming it.
 */
export function storeCatalog(options: Pick<CreateMemoryOptions, 'indexedDB' | 'IDBKeyRange' | 'index'> = {}): StoreCatalog {
  const db = {
    ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
    ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
  };
  const indexedDb = indexedDbCatalog(db);
  return {
    ...indexedDb,
    // Alone with the name (both names for a rename): never a store open in another tab or worker.
    delete: (name) => withStoreAlone(name, 'delete', () => indexedDb.delete(name)),
    rename: (from, to) => withStoreAlone(from, 'rename', () => withStoreAlone(to, 'rename', () => indexedDb.rename(from, to))),
    // The OPFS stores join the list where this worker holds them (a worker serving an OPFS store).
    async list() {
      const inIndexedDb = (await indexedDb.list()).map((s) => ({ ...s, storage: 'indexeddb' as const }));
      // Synchronous access handles exist in dedicated workers only: elsewhere nothing holds OPFS stores.
      const inOpfs = 'FileSystemSyncAccessHandle' in globalThis ? (await import('./adapters/sql/opfs-store.ts')).heldOpfsStoreNames() : [];
      const opfs = inOpfs.map((name) => ({ name, memories: null, embedder: null, createdAt: null, schemaVersion: null, storage: 'opfs' as const }));
      return [...inIndexedDb, ...opfs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.storage < b.storage ? -1 : 1));
    },
    move: (name, to, { signal, onProgress }) => moveMemory(name, to, { ...db, ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) }),
  };
}

function indexedDbCatalog(indexedDb: Pick<DexieStorageOptions, 'indexedDB' | 'IDBKeyRange'>): StoreCatalog {
  return createDexieCatalog({
    ...indexedDb,
    stores: {
      databaseName,
      prepare: async (name, db) => (await openDexieStorage(name, db)).close(),
      delete: (name, db) => deleteDexieStorage(name, db),
    },
    registry: (db) => openDexieRegistry(db),
    dropSnapshot: async (name: string) => (await import('./adapters/index-hnsw.ts')).dropHnswSnapshot(name),
  });
}

/** Every store of this origin, by name, with its memory count and model (`open` is always false in process). */
export async function listMemories(options: Pick<CreateMemoryOptions, 'indexedDB' | 'IDBKeyRange'> = {}): Promise<StoreInfo[]> {
  return (await storeCatalog(options).list()).map((s) => ({ ...s, open: false }));
}

/**
 * Renames a closed store: its database is copied under the new name, then deleted; its index
 * rebuilds from the stored vectors at its next open.
 * @throws MemoryError NOT_FOUND (no such store), STORE_EXISTS (the new name is taken), INVALID_ARGUMENT (a bad name).
 */
export async function renameMemory(from: string, to: string, options: Pick<CreateMemoryOptions, 'indexedDB' | 'IDBKeyRange' | 'index'> = {}): Promise<void> {
  checkStoreName(from, 'from');
  checkStoreName(to, 'to');
  if (from === to) throw invalid('The new name is the same as the old one', { field: 'to' });
  await storeCatalog(options).rename(from, to);
}
