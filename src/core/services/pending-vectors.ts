/**
 * The deferred index's pending vectors (deferred-index.ts), kept in slabs: fixed-size typed
 * arrays of `SLAB` slots each, a label's slot in a `Map` (a small integer, no object per vector),
 * its inverse norm in a `Float64Array`. A first sync of 50,000 memories leaves them all pending;
 * one typed array and one object each made 50,000 heap objects that the garbage collector
 * traced on every full collection, and V8 sizes the old generation by what survives.
 *
 * `compact` keeps each vector as its int8 codes, computed as the int8 graph computes them (the
 * largest magnitude scaled to 127, rounded): a quarter of the float32 bytes. A cosine is
 * scale-free, so the codes stand for the vector; the graph is handed the codes as numbers and
 * stores the same codes (its scale then comes from the codes' norm rather than the vector's, a
 * difference of the codes' own rounding, ~10⁻³ of cosine, which the store's rescoring from the
 * stored vectors removes).
 *
 * Insertion order is kept (a re-set label moves to the back), so the oldest leave first.
 */

import { dot } from '../domain/vector-math.ts';

/** Slots a slab holds. */
const SLAB = 1024;

/**
 * The vector's int8 codes as the int8 graph's kernel computes them (kernel.c, `quantise`): in
 * float32, each component times 127 / its largest magnitude, rounded half away from zero.
 */
export function int8Codes(vector: Float32Array, out: Int8Array = new Int8Array(vector.length), at = 0): Int8Array {
  let peak = 0;
  for (let i = 0; i < vector.length; i++) peak = Math.max(peak, Math.abs(vector[i]!));
  const toCode = peak > 0 ? Math.fround(127 / peak) : 0;
  for (let i = 0; i < vector.length; i++) {
    const c = Math.fround(vector[i]! * toCode);
    out[at + i] = Math.max(-127, Math.min(127, Math.trunc(c < 0 ? Math.fround(c - 0.5) : Math.fround(c + 0.5))));
  }
  return out;
}

/** `codes[at … at+dim) · b`, four partial sums as in vector-math's `dot` (kept apart: one array type a function). */
function dotCodes(codes: Int8Array, at: number, b: Float32Array, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const tail = dim - (dim % 4);
  let j = 0;
  for (; j < tail; j += 4) {
    s0 += codes[at + j]! * b[j]!;
    s1 += codes[at + j + 1]! * b[j + 1]!;
    s2 += codes[at + j + 2]! * b[j + 2]!;
    s3 += codes[at + j + 3]! * b[j + 3]!;
  }
  for (; j < dim; j++) s0 += codes[at + j]! * b[j]!;
  return s0 + s1 + s2 + s3;
}

export class PendingVectors {
  private readonly slots = new Map<number, number>();
  private slabs: (Float32Array | Int8Array)[] = [];
  private invs: Float64Array[] = [];
  /** Slots given back by deleted labels, reused before a new one is taken. */
  private free: number[] = [];
  private next = 0;

  constructor(
    readonly dim: number,
    readonly compact: boolean,
  ) {}

  get size(): number {
    return this.slots.size;
  }

  /** Bytes the slabs hold (vectors and inverse norms). */
  get bytes(): number {
    let sum = 0;
    for (let s = 0; s < this.slabs.length; s++) sum += this.slabs[s]!.byteLength + this.invs[s]!.byteLength;
    return sum;
  }

  has(label: number): boolean {
    return this.slots.has(label);
  }

  /** Keeps `vector` (a finite one, of `dim` components) for `label`, at the back of the queue. */
  set(label: number, vector: Float32Array): void {
    const old = this.slots.get(label);
    if (old !== undefined) {
      this.slots.delete(label);
      this.free.push(old);
    }
    const slot = this.free.pop() ?? this.next++;
    const s = Math.floor(slot / SLAB);
    if (s === this.slabs.length) {
      this.slabs.push(this.compact ? new Int8Array(SLAB * this.dim) : new Float32Array(SLAB * this.dim));
      this.invs.push(new Float64Array(SLAB));
    }
    const slab = this.slabs[s]!;
    const at = (slot % SLAB) * this.dim;
    let norm = 0;
    if (slab instanceof Int8Array) {
      int8Codes(vector, slab, at);
      for (let j = at; j < at + this.dim; j++) norm += slab[j]! * slab[j]!;
    } else {
      slab.set(vector, at);
      norm = dot(vector, 0, vector, this.dim);
    }
    this.invs[s]![slot % SLAB] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    this.slots.set(label, slot);
  }

  delete(label: number): boolean {
    const slot = this.slots.get(label);
    if (slot === undefined) return false;
    this.slots.delete(label);
    if (this.slots.size === 0) this.clear();
    else this.free.push(slot);
    return true;
  }

  clear(): void {
    this.slots.clear();
    this.slabs = [];
    this.invs = [];
    this.free = [];
    this.next = 0;
  }

  /** Labels, oldest first. */
  labels(): IterableIterator<number> {
    return this.slots.keys();
  }

  /** The float32 vector the wrapped index is given for `label` (a copy; the codes as numbers). */
  vector(label: number): Float32Array {
    const slot = this.slots.get(label)!;
    const at = (slot % SLAB) * this.dim;
    return Float32Array.from(this.slabs[Math.floor(slot / SLAB)]!.subarray(at, at + this.dim));
  }

  /** Calls `visit` with each pending label (passing `filter`) and its cosine with `query`. */
  scan(query: Float32Array, qInv: number, filter: ((label: number) => boolean) | undefined, visit: (label: number, similarity: number) => void): void {
    const { dim } = this;
    for (const [label, slot] of this.slots) {
      if (filter !== undefined && !filter(label)) continue;
      const s = Math.floor(slot / SLAB);
      const i = slot % SLAB;
      const slab = this.slabs[s]!;
      const raw = slab instanceof Int8Array ? dotCodes(slab, i * dim, query, dim) : dot(slab, i * dim, query, dim);
      // Clamped: float rounding puts identical vectors a hair past 1.
      visit(label, Math.max(-1, Math.min(1, raw * this.invs[s]![i]! * qInv)));
    }
  }
}
