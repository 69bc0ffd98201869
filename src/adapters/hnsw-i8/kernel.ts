/**
 * The int8 HNSW kernel (kernel.c compiled to WebAssembly) behind a small typed facade: one
 * instance per index, its linear memory read and written through views that are refreshed
 * whenever the memory has grown.
 */
import { KERNEL_WASM_BASE64 } from './kernel-wasm.ts';

interface Exports {
  memory: WebAssembly.Memory;
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
}

let compiled: Promise<WebAssembly.Module> | undefined;
let override: string | null = null;

/** Benchmarks only: indexes created after this call load another build of the kernel (null: the shipped one). */
export function setKernelBytesForBenchmarks(base64: string | null): void {
  override = base64;
  compiled = undefined;
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

/** The compiled module (once per realm). */
export function kernelModule(): Promise<WebAssembly.Module> {
  compiled ??= WebAssembly.compile(decodeBase64(override ?? KERNEL_WASM_BASE64) as Uint8Array<ArrayBuffer>).catch((error: unknown) => {
    compiled = undefined;
    throw error;
  });
  return compiled;
}

export interface KernelParams {
  dim: number;
  m: number;
  efConstruction: number;
  seed: number;
  capacityHint: number;
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

  private constructor(instance: WebAssembly.Instance, readonly params: KernelParams) {
    this.x = instance.exports as unknown as Exports;
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

  /** Empties the index (its linear memory is kept for reuse). */
  reset(): void {
    this.x.reset();
    this.init();
  }

  /** Bytes of linear memory reserved (the high-water mark: wasm memory never shrinks). */
  get reservedBytes(): number {
    return this.x.memory.buffer.byteLength;
  }

  static async create(params: KernelParams): Promise<Kernel> {
    const module = await kernelModule();
    let self: Kernel | undefined;
    const instance = await WebAssembly.instantiate(module, {
      env: { admit: (label: number) => (self!.filter!(label >>> 0) ? 1 : 0) },
    });
    self = new Kernel(instance, params);
    return self;
  }

  private get buffer(): ArrayBuffer {
    return this.x.memory.buffer as ArrayBuffer;
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
