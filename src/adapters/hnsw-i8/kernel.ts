/**
 * The int8 HNSW kernel (kernel.c compiled to WebAssembly) behind a small typed facade: one
 * instance per index, its linear memory read and written through views that are refreshed
 * whenever the memory has grown.
 *
 * Where shared memory and workers are at hand (Node; a cross-origin-isolated worker), the index
 * loads the threaded build and batches of insertions are searched by helper threads as well
 * (kernel-threads.ts); elsewhere the same batches run on one thread and make the same graph.
 */
import { KERNEL_THREADS_INITIAL_PAGES, KERNEL_THREADS_WASM_BASE64, KERNEL_WASM_BASE64 } from './kernel-wasm.ts';
import { Helpers, prepareThreads, threadsAvailable } from './kernel-threads.ts';

interface Exports {
  memory?: WebAssembly.Memory;
  __stack_pointer?: WebAssembly.Global;
  init(dim: number, m: number, efc: number, seed: number, capacityHint: number): number;
  reset(): void;
  io_vector(): number;
  vec_block_size(): number;
  link0_block_size(): number;
  chunk_slots(): number;
  chunk_ptr(c: number): number;
  link0_ptr(c: number): number;
  slot_count(): number;
  chunk_count(): number;
  live_count(): number;
  entry_point(): number;
  top_level(): number;
  dirty_vectors(): number;
  dirty_links(): number;
  memory_used(): number;
  rng_state_lo(): number;
  rng_state_hi(): number;
  set_rng_state(lo: number, hi: number): void;
  scratch(bytes: number): number;
  find(label: number): number;
  add(label: number): number;
  remove_label(label: number): number;
  out_labels(): number;
  out_distances(): number;
  search(k: number, ef: number, filter: number): number;
  scan(k: number, filter: number): number;
  clear_dirty(): void;
  upper_size(c: number): number;
  upper_write(c: number, dst: number): void;
  load_begin(slots: number): number;
  upper_read(c: number, src: number, bytes: number): number;
  load_end(slots: number, entry: number, top: number): number;
  batch_io(): number;
  batch_labels_ptr(): number;
  batch_max(): number;
  max_threads(): number;
  thread_items(t: number): number;
  helpers_started(): number;
  helpers_started_ptr(): number;
  set_threads(n: number): void;
  helper_stack(): number;
  helper_dead_ptr(): number;
  helper_loop(t: number): void;
  stop_helpers(): void;
  batch_begin(n: number): number;
  batch_pending(): number;
  batch_finish(): number;
}

/** A batch searches on several threads only over a graph of at least this many slots (kernel.c). */
const BATCH_MIN_GRAPH = 4096;

const compiled = new Map<string, Promise<WebAssembly.Module>>();
let override: string | null = null;

/** Benchmarks only: indexes created after this call load another build of the kernel, on one thread (null: the shipped ones). */
export function setKernelBytesForBenchmarks(base64: string | null): void {
  override = base64;
  compiled.clear();
}

function decodeBase64(text: string): Uint8Array {
  if (typeof atob === 'function') {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  return Uint8Array.from((globalThis as { Buffer?: { from(s: string, e: string): Uint8Array } }).Buffer!.from(text, 'base64'));
}

/** The compiled module (once per realm): the single-threaded build, or the threaded one. */
export function kernelModule(threaded = false): Promise<WebAssembly.Module> {
  const text = threaded ? KERNEL_THREADS_WASM_BASE64 : (override ?? KERNEL_WASM_BASE64);
  const key = threaded ? 'threads' : 'single';
  let module = compiled.get(key);
  if (!module) {
    module = WebAssembly.compile(decodeBase64(text) as Uint8Array<ArrayBuffer>).catch((error: unknown) => {
      compiled.delete(key);
      throw error;
    });
    compiled.set(key, module);
  }
  return module;
}

export interface KernelParams {
  dim: number;
  m: number;
  efConstruction: number;
  seed: number;
  capacityHint: number;
  /**
   * Threads that insert batches, this one included: 1 keeps to one thread; more need shared
   * memory and workers (else 1 is used). Default: the cores the platform reports, at most 4.
   */
  threads?: number;
}

export interface KernelHits {
  labels: Uint32Array;
  distances: Float32Array;
}

/** One index's worth of kernel: graph, int8 codes, label map. */
export class Kernel {
  private readonly x: Exports;
  private filter: ((label: number) => boolean) | undefined;
  /** Bytes of a chunk's vector block and of its level-0 links. */
  readonly vectorBlockBytes: number;
  readonly link0Bytes: number;
  readonly chunkSlots: number;

  /** Helper threads of the threaded build (started at the first batch over a large enough graph). */
  private helpers: Helpers | null = null;
  private readonly threads: number;

  private constructor(
    instance: WebAssembly.Instance,
    readonly params: KernelParams,
    private readonly memory: WebAssembly.Memory,
    private readonly threaded: { module: WebAssembly.Module } | null,
  ) {
    this.x = instance.exports as unknown as Exports;
    this.threads = threaded ? Math.min(this.x.max_threads(), Math.max(1, Math.floor(params.threads ?? 1))) : 1;
    this.init();
    this.vectorBlockBytes = this.x.vec_block_size();
    this.link0Bytes = this.x.link0_block_size();
    this.chunkSlots = this.x.chunk_slots();
  }

  private init(): void {
    const p = this.params;
    if (!this.x.init(p.dim, p.m, p.efConstruction, p.seed, p.capacityHint)) {
      throw new Error('the index kernel could not be initialised (parameters or memory)');
    }
  }

  /** Empties the index (its linear memory is kept for reuse; helper threads end). */
  reset(): void {
    this.stopHelpers();
    this.x.reset();
    this.init();
  }

  /** Ends the helper threads (a later batch starts them again). */
  stopHelpers(): void {
    if (!this.helpers) return;
    // Their batch first: a helper ended mid-item would leave it unfinished.
    if (this.x.batch_pending()) this.x.batch_finish();
    this.x.stop_helpers();
    // Then let them return, so none is still running when others start on the same memory.
    const running = new Int32Array(this.buffer, this.x.helpers_started_ptr(), 1);
    const until = Date.now() + 2000;
    for (let n = Atomics.load(running, 0); n > 0 && Date.now() < until; n = Atomics.load(running, 0)) Atomics.wait(running, 0, n, 50);
    this.helpers.terminate();
    this.helpers = null;
    this.x.set_threads(1);
  }

  /** Bytes of linear memory reserved (the high-water mark: wasm memory never shrinks). */
  get reservedBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Threads that insert batches now (1 until helpers have started). */
  get activeThreads(): number {
    return this.helpers ? this.threads : 1;
  }

  /** Helper threads running now (started, waiting for or working on batches). */
  get helpersRunning(): number {
    return this.x.helpers_started();
  }

  /** Batch items the helper threads searched since the index was last emptied (0: they never took part). */
  get helperItems(): number {
    let n = 0;
    for (let t = 1; t < this.x.max_threads(); t++) n += this.x.thread_items(t);
    return n;
  }

  static async create(params: KernelParams): Promise<Kernel> {
    const cores = params.threads === 1 ? 1 : prepareThreads();
    const wanted = Math.max(1, Math.floor(params.threads ?? Math.min(4, cores)));
    // Another build loaded for a benchmark is a single-threaded one.
    const threaded = wanted > 1 && override === null && threadsAvailable();
    const module = await kernelModule(threaded);
    let self: Kernel | undefined;
    const admit = (label: number): number => (self!.filter!(label >>> 0) ? 1 : 0);
    if (threaded) {
      const memory = new WebAssembly.Memory({ initial: KERNEL_THREADS_INITIAL_PAGES, maximum: 65536, shared: true });
      const instance = await WebAssembly.instantiate(module, { env: { memory, admit } });
      self = new Kernel(instance, { ...params, threads: wanted }, memory, { module });
      return self;
    }
    const instance = await WebAssembly.instantiate(module, { env: { admit } });
    self = new Kernel(instance, params, (instance.exports as unknown as Exports).memory!, null);
    return self;
  }

  private get buffer(): ArrayBuffer {
    return this.memory.buffer as ArrayBuffer;
  }

  get live(): number {
    return this.x.live_count();
  }
  get slots(): number {
    return this.x.slot_count();
  }
  get chunks(): number {
    return this.x.chunk_count();
  }
  get entry(): number {
    return this.x.entry_point() >>> 0;
  }
  get topLevel(): number {
    return this.x.top_level();
  }
  /** Bytes of linear memory in use. */
  get memoryBytes(): number {
    return this.x.memory_used() >>> 0;
  }
  get rngState(): [number, number] {
    return [this.x.rng_state_lo() >>> 0, this.x.rng_state_hi() >>> 0];
  }
  set rngState([lo, hi]: [number, number]) {
    this.x.set_rng_state(lo, hi);
  }

  has(label: number): boolean {
    return this.x.find(label) >= 0;
  }

  /** Adds or replaces one label; false when memory ran out (nothing changed then). */
  add(label: number, vector: Float32Array): boolean {
    new Float32Array(this.buffer, this.x.io_vector(), this.params.dim).set(vector);
    return this.x.add(label) === 1;
  }

  /**
   * Adds (or replaces) labels in order, in batches the kernel searches on every thread it has.
   * Returns how many were added: fewer than asked when memory ran out (those before are whole).
   *
   * The last batch may still be with the helper threads when this returns (its labels count and
   * are found by `has` at once): the caller's next work (a storage write) overlaps their search,
   * and the next call that reads or changes the graph links it first.
   */
  addMany(labels: readonly number[], vectors: readonly Float32Array[]): number {
    this.settle();
    const dim = this.params.dim;
    if (!this.x.batch_io()) return 0;
    const most = this.x.batch_max();
    let added = 0;
    while (added < labels.length) {
      const n = Math.min(most, labels.length - added);
      const io = new Float32Array(this.buffer, this.x.batch_io(), most * dim);
      const ids = new Uint32Array(this.buffer, this.x.batch_labels_ptr(), most);
      for (let i = 0; i < n; i++) {
        io.set(vectors[added + i]!, i * dim);
        ids[i] = labels[added + i]!;
      }
      const placed = this.x.batch_begin(n);
      added += placed;
      if (placed < n) {
        this.settle();
        break;
      }
      this.startHelpers();
    }
    return added;
  }

  /** Links a batch still with the helper threads (what every call that reads the graph does first). */
  settle(): void {
    if (this.x.batch_pending() && !this.x.batch_finish()) throw new Error('the index kernel ran out of memory');
  }

  /** Starts the helper threads once the graph is large enough for batches to use them. */
  private startHelpers(): void {
    if (this.helpers || !this.threaded || this.threads < 2 || this.x.slot_count() < BATCH_MIN_GRAPH) return;
    const stacks: number[] = [];
    for (let t = 1; t < this.threads; t++) {
      const top = this.x.helper_stack();
      if (!top) return;
      stacks.push(top);
    }
    this.x.set_threads(this.threads);
    this.helpers = new Helpers(this.threaded.module, this.memory, stacks, this.x.helper_dead_ptr());
  }

  remove(label: number): boolean {
    return this.x.remove_label(label) === 1;
  }

  /** Graph search (beam width max(ef, k)); distances are 1 − cosine, ascending. */
  search(query: Float32Array, k: number, ef: number, filter?: (label: number) => boolean): KernelHits {
    return this.run(query, filter, () => this.x.search(k, ef, filter ? 1 : 0));
  }

  /** Exact scan over the int8 codes. */
  scan(query: Float32Array, k: number, filter?: (label: number) => boolean): KernelHits {
    return this.run(query, filter, () => this.x.scan(k, filter ? 1 : 0));
  }

  private run(query: Float32Array, filter: ((label: number) => boolean) | undefined, call: () => number): KernelHits {
    new Float32Array(this.buffer, this.x.io_vector(), this.params.dim).set(query);
    this.filter = filter;
    let n: number;
    try {
      n = call();
    } finally {
      this.filter = undefined;
    }
    if (n < 0) throw new Error('the index kernel ran out of memory');
    return {
      labels: new Uint32Array(this.buffer, this.x.out_labels(), n).slice(),
      distances: new Float32Array(this.buffer, this.x.out_distances(), n).slice(),
    };
  }

  // --- persistence -------------------------------------------------------------------------

  /** Chunks whose vector block / link block changed since the last `clearDirty`. */
  dirtyChunks(): { vectors: number[]; links: number[] } {
    const n = this.chunks;
    const v = new Uint8Array(this.buffer, this.x.dirty_vectors(), n);
    const l = new Uint8Array(this.buffer, this.x.dirty_links(), n);
    const vectors: number[] = [];
    const links: number[] = [];
    for (let c = 0; c < n; c++) {
      if (v[c]) vectors.push(c);
      if (l[c]) links.push(c);
    }
    return { vectors, links };
  }

  clearDirty(): void {
    this.x.clear_dirty();
  }

  /** A copy of chunk c's vector block. */
  vectorBlock(c: number): Uint8Array {
    return new Uint8Array(this.buffer, this.x.chunk_ptr(c), this.vectorBlockBytes).slice();
  }

  /** A copy of chunk c's link block: its level-0 lists, then its upper-level lists. */
  linkBlock(c: number): Uint8Array {
    const upper = this.x.upper_size(c);
    const out = new Uint8Array(this.link0Bytes + upper);
    out.set(new Uint8Array(this.buffer, this.x.link0_ptr(c), this.link0Bytes));
    if (upper > 0) {
      const at = this.x.scratch(upper);
      if (!at) throw new Error('the index kernel ran out of memory');
      this.x.upper_write(c, at);
      out.set(new Uint8Array(this.buffer, at, upper), this.link0Bytes);
    }
    return out;
  }

  /** Loading, step 1: room for `slots` slots. */
  loadBegin(slots: number): boolean {
    return this.x.load_begin(slots) === 1;
  }

  /** Loading, step 2 (per chunk, vector block before link block). */
  loadVectorBlock(c: number, bytes: Uint8Array): boolean {
    if (c >= this.chunks || bytes.byteLength !== this.vectorBlockBytes) return false;
    new Uint8Array(this.buffer, this.x.chunk_ptr(c), this.vectorBlockBytes).set(bytes);
    return true;
  }

  loadLinkBlock(c: number, bytes: Uint8Array): boolean {
    if (c >= this.chunks || bytes.byteLength < this.link0Bytes) return false;
    new Uint8Array(this.buffer, this.x.link0_ptr(c), this.link0Bytes).set(bytes.subarray(0, this.link0Bytes));
    const upper = bytes.byteLength - this.link0Bytes;
    const at = this.x.scratch(Math.max(4, upper));
    if (!at) return false;
    new Uint8Array(this.buffer, at, upper).set(bytes.subarray(this.link0Bytes));
    return this.x.upper_read(c, at, upper) === 1;
  }

  /** Loading, step 3: checks the graph and rebuilds the label map; the live count, or −1. */
  loadEnd(slots: number, entry: number, top: number): number {
    return this.x.load_end(slots, entry >>> 0, top);
  }
}
