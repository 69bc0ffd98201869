/**
 * HNSW over int8-quantised vectors (our kernel in WebAssembly with SIMD128), persisted
 * incrementally as fixed-size blocks through an `IndexBlockStore`.
 *
 * Why: at a million 384-d memories hnswlib-wasm needs ~1.8 GB of float32 graph in the tab and
 * rewrites the whole file on every snapshot. Here a vector costs 384 bytes + a 4-byte scale, its
 * level-0 links 132 bytes, and a snapshot rewrites only the blocks that changed (BENCHMARKS.md,
 * "One million memories", has the comparison that chose this).
 *
 * Similarities are approximate (`approximate: true`): int8 codes cost about 5·10⁻⁴ of cosine,
 * enough to swap near-ties, so the store rescores its best hits from the stored float32 vectors
 * (core/services/rescore.ts).
 *
 * Snapshots: every chunk of 1,024 slots is two blocks — its vectors (codes, scales, labels,
 * levels, deleted flags; written when a slot in it is added or removed) and its links (level-0
 * lists plus the upper levels' lists; written when any of its lists changed). A snapshot is one
 * transaction of the manifest and the dirty blocks, so a crash leaves the previous snapshot
 * whole; the store then replays what came after its generation, as with hnswlib. While a
 * snapshot is being written the graph is frozen (its blocks are read lazily as the transaction
 * takes them, so memory stays flat): adds and removes made meanwhile wait in a queue that
 * searches see, and are applied when the write ends. A manifest tag detects a second writer of
 * the same store (another instance wrote since we read): then the whole index is rewritten.
 */
import { invalid, MemoryError } from '../core/errors.ts';
import type { IndexBlock, IndexBlockStore, IndexHit, VectorIndex, VectorIndexFactory } from '../core/ports.ts';
import { checkBatch, checkQuery } from '../core/domain/index-checks.ts';
import { Kernel, type KernelParams } from './hnsw-i8/kernel.ts';

export interface HnswI8Options {
  /** Graph degree (links per node per upper layer; layer 0 has 2·m). Default 16. */
  m?: number;
  /** Candidate list size while inserting. Default 100. */
  efConstruction?: number;
  /**
   * Candidate list size while searching, default 128; each search uses `searchBreadth(efSearch,
   * size, k)`: at least k, and growing with the graph beyond 250,000 vectors.
   */
  efSearch?: number;
  /** Seed of the level generator: same seed, insertion order and batches, same graph. Default 100. */
  seed?: number;
  /**
   * Threads that insert a batch (this one included), where shared memory and workers are at hand:
   * Node, or a cross-origin-isolated dedicated worker (the app's is). Elsewhere one thread does it,
   * making the same graph. Default: the cores reported, at most 4.
   */
  threads?: number;
}

export const HNSW_I8_DEFAULTS: Readonly<Required<Omit<HnswI8Options, 'threads'>>> = Object.freeze({
  m: 16,
  efConstruction: 100,
  efSearch: 128,
  seed: 100,
});

/** Up to this many vectors a search looks at `efSearch` candidates; beyond, proportionally more. */
export const EF_GROWS_FROM = 250_000;
/** The most candidates one search looks at. */
export const EF_MAX = 1024;

/**
 * How many candidates a search looks at. A fixed breadth finds less of the true top 10 as the
 * graph grows (on 384-d clustered vectors, ef 128: recall@10 0.98 at 10k, 0.97 at 100k, 0.80 at
 * 1M); growing it with the size past 250k keeps recall up for the time it costs (at 1M, ef 512:
 * 0.92 bare, 0.955 after the store's float32 rescoring of 4·k, search p50 3.1 ms; BENCHMARKS.md).
 */
export function searchBreadth(efSearch: number, size: number, k: number): number {
  const grown = size > EF_GROWS_FROM ? Math.ceil((efSearch * size) / EF_GROWS_FROM) : efSearch;
  return Math.max(k, Math.min(Math.max(efSearch, EF_MAX), grown));
}

const FORMAT = 1;
const MANIFEST_FIELDS = ['format', 'generation', 'dim', 'm', 'efConstruction', 'slots', 'entry', 'top', 'live', 'chunkSlots', 'vectorBlockBytes', 'link0Bytes'] as const;

interface Manifest {
  tag: string;
  format: number;
  generation: number;
  dim: number;
  m: number;
  efConstruction: number;
  seed: number;
  slots: number;
  entry: number;
  top: number;
  live: number;
  rng: [number, number];
  chunkSlots: number;
  vectorBlockBytes: number;
  link0Bytes: number;
  savedAt: number;
}

export interface HnswI8FactoryOptions extends HnswI8Options {
  /** Where each store's index blocks live (the store's own database in `createMemory`). */
  blocks: (name: string) => IndexBlockStore;
}

/** Creates int8 HNSW indexes whose snapshots go to `blocks(name)`. */
export function createHnswI8IndexFactory(options: HnswI8FactoryOptions): VectorIndexFactory {
  const params = resolveParams(options);
  if (typeof options?.blocks !== 'function') throw invalid('blocks must be a function returning an IndexBlockStore', { field: 'blocks' });
  return async ({ name, dim, capacity }) => {
    if (typeof name !== 'string' || name === '') throw invalid('name must be a non-empty string', { field: 'name' });
    if (!Number.isInteger(dim) || dim < 1) throw invalid('dim must be a positive integer', { field: 'dim' });
    const kernelParams: KernelParams = {
      dim,
      m: params.m,
      efConstruction: params.efConstruction,
      seed: params.seed,
      capacityHint: Math.min(1 << 22, Math.max(1024, Math.floor(Number(capacity) || 0))),
      ...(params.threads === undefined ? {} : { threads: params.threads }),
    };
    const kernel = await Kernel.create(kernelParams).catch((error: unknown) => {
      throw new MemoryError('MODEL_UNAVAILABLE', `Could not load the index kernel: ${(error as Error)?.message ?? String(error)}`);
    });
    return new HnswI8Index(kernel, kernelParams, params.efSearch, options.blocks(name));
  };
}

function resolveParams(options: HnswI8Options): Required<Omit<HnswI8Options, 'threads'>> & Pick<HnswI8Options, 'threads'> {
  const p: Required<Omit<HnswI8Options, 'threads'>> & Pick<HnswI8Options, 'threads'> = { ...HNSW_I8_DEFAULTS };
  for (const key of Object.keys(HNSW_I8_DEFAULTS) as (keyof typeof HNSW_I8_DEFAULTS)[]) if (options?.[key] !== undefined) p[key] = options[key]!;
  const check = (value: number, field: string, min: number, max: number): void => {
    if (!Number.isInteger(value) || value < min || value > max) throw invalid(`${field} must be an integer in [${min}, ${max}]`, { field });
  };
  check(p.m, 'm', 2, 100);
  check(p.efConstruction, 'efConstruction', 1, 10_000);
  check(p.efSearch, 'efSearch', 1, 100_000);
  check(p.seed, 'seed', 0, 0xffff_ffff);
  if (options?.threads !== undefined) {
    check(options.threads, 'threads', 1, 64);
    p.threads = options.threads;
  }
  return p;
}

function newTag(): string {
  const c = globalThis.crypto as Crypto | undefined;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

class HnswI8Index implements VectorIndex {
  readonly kind = 'hnsw-i8' as const;
  readonly approximate = true;
  readonly dim: number;
  private disposed = false;
  /** The next snapshot must rewrite everything (what is stored is unknown or stale). */
  private full = true;
  /** Tag of the manifest we last wrote or loaded. */
  private tag: string | null = null;
  /** A snapshot is being written: the kernel is frozen and writes wait in `queue`. */
  private saving: Promise<boolean> | null = null;
  private queue = new Map<number, { vector: Float32Array; inv: number } | null>();
  /** Live-count change the queue makes over the kernel. */
  private delta = 0;
  /** clear() ran during a write: the kernel counts as empty until it ends. */
  private hidden = false;

  constructor(
    private kernel: Kernel,
    private readonly params: KernelParams,
    private readonly efSearch: number,
    private readonly blocks: IndexBlockStore,
  ) {
    this.dim = params.dim;
  }

  size(): number {
    return (this.hidden ? 0 : this.kernel.live) + this.delta;
  }

  has(label: number): boolean {
    const queued = this.queue.get(label);
    if (queued !== undefined) return queued !== null;
    return !this.hidden && this.kernel.has(label);
  }

  add(labels: number[], vectors: Float32Array[]): void {
    this.alive();
    checkBatch(labels, vectors, this.dim);
    if (this.saving) {
      for (let i = 0; i < labels.length; i++) this.enqueue(labels[i]!, vectors[i]!);
      return;
    }
    // Last write wins within a batch: the kernel replaces a label it already holds.
    if (this.kernel.addMany(labels, vectors) < labels.length) {
      throw new MemoryError('STORAGE_QUOTA', 'The vector index ran out of memory (WebAssembly memory is limited to 4 GiB)', { size: this.size() });
    }
  }

  remove(labels: number[]): void {
    this.alive();
    for (const label of labels) {
      if (this.saving) {
        if (this.has(label)) this.enqueue(label, null);
      } else this.kernel.remove(label);
    }
  }

  search(query: Float32Array, k: number, filter?: (label: number) => boolean): IndexHit[] {
    this.alive();
    const want = Math.min(checkQuery(query, k, this.dim), this.size());
    if (want === 0) return [];
    const queue = this.queue;
    // Queued labels shadow what the frozen kernel holds for them.
    const admit =
      queue.size === 0 ? filter : (label: number): boolean => !queue.has(label) && (filter === undefined || Boolean(filter(label)));
    const hits: IndexHit[] = [];
    if (!this.hidden && this.kernel.live > 0) {
      let found = this.kernel.search(query, want, searchBreadth(this.efSearch, this.kernel.live, want), admit);
      // The beam explores the whole reachable graph before it returns fewer than asked; if it
      // still did (a filter or deletions cut the graph), an exact scan of the codes settles it.
      if (found.labels.length < want) found = this.kernel.scan(query, want, admit);
      for (let i = 0; i < found.labels.length; i++) {
        hits.push({ label: found.labels[i]!, similarity: clamp(1 - found.distances[i]!) });
      }
    }
    if (queue.size > 0) {
      const qInv = inverseNorm(query);
      for (const [label, entry] of queue) {
        if (entry === null || (filter !== undefined && !filter(label))) continue;
        hits.push({ label, similarity: clamp(dot(entry.vector, query) * entry.inv * qInv) });
      }
    }
    hits.sort((a, b) => b.similarity - a.similarity || a.label - b.label);
    if (hits.length > want) hits.length = want;
    return hits;
  }

  clear(): void {
    this.alive();
    this.full = true;
    if (this.saving) {
      this.hidden = true;
      this.queue.clear();
      this.delta = 0;
      return;
    }
    this.kernel.reset();
  }

  async saveSnapshot(generation: number): Promise<boolean> {
    this.alive();
    if (!Number.isSafeInteger(generation) || generation < 0) throw invalid('generation must be a non-negative integer', { field: 'generation' });
    while (this.saving) await this.saving;
    if (this.disposed) return false;
    const run = this.write(generation);
    this.saving = run;
    try {
      return await run;
    } finally {
      this.saving = null;
      this.settle();
    }
  }

  private async write(generation: number): Promise<boolean> {
    const kernel = this.kernel;
    const manifest: Manifest = {
      tag: newTag(),
      format: FORMAT,
      generation,
      dim: this.dim,
      m: this.params.m,
      efConstruction: this.params.efConstruction,
      seed: this.params.seed,
      slots: kernel.slots,
      entry: kernel.entry,
      top: kernel.topLevel,
      live: kernel.live,
      rng: kernel.rngState,
      chunkSlots: kernel.chunkSlots,
      vectorBlockBytes: kernel.vectorBlockBytes,
      link0Bytes: kernel.link0Bytes,
      savedAt: Date.now(),
    };
    const attempt = async (replaceAll: boolean): Promise<boolean> => {
      const blocks = replaceAll ? this.allBlocks(kernel) : this.dirtyBlocks(kernel);
      return this.blocks.write({ manifest: { ...manifest }, expectTag: replaceAll ? null : this.tag, replaceAll, blocks });
    };
    try {
      let ok = await attempt(this.full);
      // Someone else wrote this store's index since we read it: our dirty blocks are not enough.
      if (!ok && !this.full) ok = await attempt(true);
      if (!ok || this.disposed) return false;
      kernel.clearDirty();
      this.tag = manifest.tag;
      this.full = false;
      return true;
    } catch {
      return false;
    }
  }

  private *allBlocks(kernel: Kernel): Generator<IndexBlock> {
    for (let c = 0; c < kernel.chunks; c++) {
      this.alive();
      yield { key: 2 * c, bytes: kernel.vectorBlock(c) };
      yield { key: 2 * c + 1, bytes: kernel.linkBlock(c) };
    }
  }

  private *dirtyBlocks(kernel: Kernel): Generator<IndexBlock> {
    const { vectors, links } = kernel.dirtyChunks();
    const keys = [...vectors.map((c) => 2 * c), ...links.map((c) => 2 * c + 1)].sort((a, b) => a - b);
    for (const key of keys) {
      this.alive();
      yield { key, bytes: key % 2 === 0 ? kernel.vectorBlock(key >> 1) : kernel.linkBlock(key >> 1) };
    }
  }

  /** After a write: applies what waited (a clear first, then the queued adds and removes). */
  private settle(): void {
    if (this.disposed) return;
    if (this.hidden) {
      this.kernel.reset();
      this.hidden = false;
    }
    const queue = this.queue;
    this.queue = new Map();
    this.delta = 0;
    for (const [label, entry] of queue) {
      if (entry === null) this.kernel.remove(label);
      else if (!this.kernel.add(label, entry.vector)) {
        throw new MemoryError('STORAGE_QUOTA', 'The vector index ran out of memory (WebAssembly memory is limited to 4 GiB)', { size: this.size() });
      }
    }
  }

  private enqueue(label: number, vector: Float32Array | null): void {
    const before = this.has(label);
    this.queue.delete(label);
    this.queue.set(label, vector === null ? null : { vector: vector.slice(), inv: inverseNorm(vector) });
    this.delta += Number(vector !== null) - Number(before);
  }

  async loadSnapshot(options: { onProgress?: (done: number, total: number) => void } = {}): Promise<number | null> {
    this.alive();
    while (this.saving) await this.saving;
    try {
      const manifest = (await this.blocks.readManifest()) as Manifest | undefined;
      if (!this.matches(manifest)) return this.failLoad();
      const loaded = await Kernel.create({ ...this.params, capacityHint: Math.max(1024, manifest.live) });
      if (!loaded.loadBegin(manifest.slots)) return this.failLoad();
      const chunks = Math.ceil(manifest.slots / manifest.chunkSlots);
      const seen = new Uint8Array(chunks * 2);
      let bad = false;
      let read = 0;
      let reported = 0;
      const step = Math.max(1, Math.floor(seen.length / 100));
      options.onProgress?.(0, seen.length);
      await this.blocks.readBlocks((batch) => {
        for (const { key, bytes } of batch) {
          const c = key >> 1;
          if (bad || !Number.isInteger(key) || key < 0 || c >= chunks) {
            bad = true;
            return;
          }
          // A chunk's link block needs its levels, so its vector block comes first (key order).
          const ok = key % 2 === 0 ? loaded.loadVectorBlock(c, bytes) : seen[key - 1] === 1 && loaded.loadLinkBlock(c, bytes);
          if (!ok) bad = true;
          seen[key] = 1;
        }
        read += batch.length;
        // SQLite lends a block at a time: progress at each hundredth, not an event a block.
        if (read - reported >= step || read >= seen.length) {
          reported = read;
          options.onProgress?.(Math.min(read, seen.length), seen.length);
        }
        // Copied into the kernel above, synchronously: the store may lend its own memory.
      }, { transient: true });
      if (bad || seen.some((s) => s !== 1) || this.disposed) return this.failLoad();
      const live = loaded.loadEnd(manifest.slots, manifest.entry, manifest.top);
      if (live !== manifest.live) return this.failLoad();
      loaded.rngState = manifest.rng;
      loaded.clearDirty();
      this.kernel = loaded;
      this.queue.clear();
      this.delta = 0;
      this.tag = manifest.tag;
      this.full = false;
      return manifest.generation;
    } catch {
      return this.failLoad();
    }
  }

  private failLoad(): null {
    this.full = true;
    return null;
  }

  private matches(m: Manifest | undefined): m is Manifest {
    if (m === null || typeof m !== 'object') return false;
    for (const field of MANIFEST_FIELDS) if (!Number.isSafeInteger(m[field]) || m[field] < 0) return false;
    return (
      m.format === FORMAT &&
      m.dim === this.dim &&
      m.m === this.params.m &&
      m.chunkSlots === this.kernel.chunkSlots &&
      m.vectorBlockBytes === this.kernel.vectorBlockBytes &&
      m.link0Bytes === this.kernel.link0Bytes &&
      typeof m.tag === 'string' &&
      Array.isArray(m.rng) &&
      m.rng.length === 2
    );
  }

  async dropSnapshot(): Promise<void> {
    while (this.saving) await this.saving;
    await this.blocks.clear();
    this.full = true;
    this.tag = null;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.queue.clear();
    this.kernel.reset();
    this.blocks.close();
  }

  /** Diagnostics for benchmarks: linear memory in use and reserved. */
  /**
   * WebAssembly memory in use and reserved, the threads inserting batches now, and the batch items
   * the helper threads searched (tests and benchmarks).
   */
  memory(): { usedBytes: number; reservedBytes: number; threads: number; helperItems: number } {
    return { usedBytes: this.kernel.memoryBytes, reservedBytes: this.kernel.reservedBytes, threads: this.kernel.activeThreads, helperItems: this.kernel.helperItems };
  }

  private alive(): void {
    if (this.disposed) throw new MemoryError('CLOSED', 'The index has been disposed');
  }
}

function clamp(x: number): number {
  return Math.max(-1, Math.min(1, x));
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function inverseNorm(v: Float32Array): number {
  const n = Math.sqrt(dot(v, v));
  return n > 0 ? 1 / n : 0;
}
