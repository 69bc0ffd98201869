/**
 * Exact (brute-force) cosine index. It is the right choice for small stores, where scanning
 * every vector costs less than keeping a graph, and it is the oracle the HNSW index is measured
 * against. Vectors live normalised in one contiguous, growable Float32Array, so a search is a
 * single tight pass of dot products plus a bounded heap for the top k — no per-query sort of
 * every score and no allocation per vector.
 */
import { invalid, MemoryError } from '../core/errors.ts';
import { checkBatch, checkQuery } from '../core/domain/index-checks.ts';
import type { IndexHit, VectorIndex } from '../core/ports.ts';
import { dot, normaliseInto } from '../core/domain/vector-math.ts';

export interface ExactIndexOptions {
  dim: number;
  /** Initial row capacity; the matrix doubles when full. */
  capacity?: number;
}

/** Creates an empty exact cosine index. */
export function createExactIndex(options: ExactIndexOptions): VectorIndex {
  const dim = options.dim;
  if (!Number.isInteger(dim) || dim < 1) throw invalid('dim must be a positive integer', { field: 'dim' });
  const initialCapacity = Math.max(16, Math.floor(options.capacity ?? 1024));
  return new ExactIndex(dim, initialCapacity);
}

class ExactIndex implements VectorIndex {
  readonly kind = 'exact' as const;
  private matrix: Float32Array;
  /** Row → label. Float64 so any label up to MAX_LABEL round-trips. */
  private rowLabels: Float64Array;
  private readonly rowOf = new Map<number, number>();
  private count = 0;
  private disposed = false;
  /** Reused per search, so queries allocate nothing proportional to the store. */
  private readonly q: Float32Array;

  constructor(
    readonly dim: number,
    private readonly initialCapacity: number,
  ) {
    this.matrix = new Float32Array(initialCapacity * dim);
    this.rowLabels = new Float64Array(initialCapacity);
    this.q = new Float32Array(dim);
  }

  size(): number {
    return this.count;
  }

  has(label: number): boolean {
    return this.rowOf.has(label);
  }

  add(labels: number[], vectors: Float32Array[]): void {
    this.alive();
    checkBatch(labels, vectors, this.dim);
    this.reserve(this.count + labels.length);
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      let row = this.rowOf.get(label);
      if (row === undefined) {
        row = this.count++;
        this.rowOf.set(label, row);
        this.rowLabels[row] = label;
      }
      normaliseInto(vectors[i]!, this.matrix, row * this.dim);
    }
  }

  remove(labels: number[]): void {
    this.alive();
    const dim = this.dim;
    for (const label of labels) {
      const row = this.rowOf.get(label);
      if (row === undefined) continue;
      const last = this.count - 1;
      if (row !== last) {
        // Swap-remove: move the last row into the hole so rows stay contiguous.
        this.matrix.copyWithin(row * dim, last * dim, last * dim + dim);
        const moved = this.rowLabels[last]!;
        this.rowLabels[row] = moved;
        this.rowOf.set(moved, row);
      }
      this.rowOf.delete(label);
      this.count = last;
    }
  }

  search(query: Float32Array, k: number, filter?: (label: number) => boolean): IndexHit[] {
    this.alive();
    const want = Math.min(checkQuery(query, k, this.dim), this.count);
    if (want === 0) return [];
    const dim = this.dim;
    const q = this.q;
    normaliseInto(query, q, 0);
    const m = this.matrix;
    const rowLabels = this.rowLabels;
    const top = new TopK(want);
    for (let row = 0, base = 0; row < this.count; row++, base += dim) {
      const label = rowLabels[row]!;
      if (filter !== undefined && !filter(label)) continue;
      top.offer(dot(m, base, q, dim), label);
    }
    return top.sorted();
  }

  clear(): void {
    this.alive();
    this.rowOf.clear();
    this.count = 0;
    this.matrix = new Float32Array(this.initialCapacity * this.dim);
    this.rowLabels = new Float64Array(this.initialCapacity);
  }

  async saveSnapshot(_generation: number): Promise<boolean> {
    return false;
  }

  async loadSnapshot(): Promise<number | null> {
    return null;
  }

  async dropSnapshot(): Promise<void> {}

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.rowOf.clear();
    this.count = 0;
    this.matrix = new Float32Array(0);
    this.rowLabels = new Float64Array(0);
  }

  private reserve(rows: number): void {
    const capacity = this.rowLabels.length;
    if (rows <= capacity) return;
    let next = Math.max(capacity, 16);
    while (next < rows) next *= 2;
    const matrix = new Float32Array(next * this.dim);
    matrix.set(this.matrix.subarray(0, this.count * this.dim));
    const rowLabels = new Float64Array(next);
    rowLabels.set(this.rowLabels.subarray(0, this.count));
    this.matrix = matrix;
    this.rowLabels = rowLabels;
  }

  private alive(): void {
    if (this.disposed) throw new MemoryError('CLOSED', 'The index has been disposed');
  }
}

/**
 * A bounded min-heap keeping the best `k` (similarity desc, then label asc). The root is the
 * worst kept hit, so most candidates are rejected with one comparison.
 */
class TopK {
  private readonly sims: Float64Array;
  private readonly labels: Float64Array;
  private n = 0;

  constructor(private readonly k: number) {
    this.sims = new Float64Array(k);
    this.labels = new Float64Array(k);
  }

  /** True when (sa, la) ranks below (sb, lb). */
  private static worse(sa: number, la: number, sb: number, lb: number): boolean {
    return sa < sb || (sa === sb && la > lb);
  }

  offer(sim: number, label: number): void {
    const sims = this.sims;
    const labels = this.labels;
    if (this.n < this.k) {
      // Sift up.
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!TopK.worse(sim, label, sims[parent]!, labels[parent]!)) break;
        sims[i] = sims[parent]!;
        labels[i] = labels[parent]!;
        i = parent;
      }
      sims[i] = sim;
      labels[i] = label;
      return;
    }
    if (!TopK.worse(sims[0]!, labels[0]!, sim, label)) return;
    // Replace the root and sift down.
    const n = this.n;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && TopK.worse(sims[r]!, labels[r]!, sims[l]!, labels[l]!)) c = r;
      if (!TopK.worse(sims[c]!, labels[c]!, sim, label)) break;
      sims[i] = sims[c]!;
      labels[i] = labels[c]!;
      i = c;
    }
    sims[i] = sim;
    labels[i] = label;
  }

  sorted(): IndexHit[] {
    const out: IndexHit[] = [];
    // Clamped: float rounding puts identical vectors a hair past 1.
    for (let i = 0; i < this.n; i++) out.push({ label: this.labels[i]!, similarity: Math.max(-1, Math.min(1, this.sims[i]!)) });
    out.sort((a, b) => b.similarity - a.similarity || a.label - b.label);
    return out;
  }
}
