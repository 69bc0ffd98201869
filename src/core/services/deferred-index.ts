/**
 * Deferred insertion over a `VectorIndex`: bulk writes (archive imports, the replay of
 * unsnapshotted writes at open) land in a pending set at once and are moved into the wrapped
 * index (the HNSW graph) in the background, a time slice at a time, yielding to the event loop
 * between slices.
 *
 * What is pending is findable the moment its write commits: `search` merges the graph's answer
 * with a cosine scan over the pending vectors (pending-vectors.ts: the same normalised dot
 * product the graph uses). Over an exact graph the scan is exact. Over an approximate one (the
 * int8 graph, whose hits the store rescores from storage anyway) the pending vectors are kept as
 * the int8 codes that graph would store, a quarter of the float32 bytes, and handed to it as
 * those codes. A snapshot is never persisted while anything is pending (`saveSnapshot` answers
 * false): the stored snapshot always describes a graph that holds every vector up to its
 * generation, and a store closed or killed mid-drain replays the rest from storage at its next
 * open. Exact indexes gain nothing from deferral; for them `addDeferred` is a plain `add`.
 */
import { MemoryError } from '../errors.ts';
import type { IndexHit, VectorIndex } from '../ports.ts';
import type { IndexKind } from '../types.ts';
import { dot, inverseNorm } from '../domain/vector-math.ts';
import { PendingVectors } from './pending-vectors.ts';

export interface DeferredIndexOptions {
  /** Vectors handed to the wrapped index per `add` call (a slice holds at least one call). Default 32. */
  chunkSize?: number;
  /** Work per slice before yielding to the event loop (ms): what a search or write may wait behind. Default 12. */
  sliceMs?: number;
  /** Pause between slices (ms). Default 0. */
  pauseMs?: number;
  /**
   * Most vectors kept pending; beyond it the oldest are inserted at once, so a huge import
   * keeps memory bounded. Default: 32 MiB worth of vectors (21,845 at 384 dimensions).
   */
  maxPending?: number;
  /**
   * Keep pending vectors as int8 codes (a quarter of the bytes; see above). Default: when the
   * wrapped index is approximate.
   */
  compact?: boolean;
}

/**
 * Lets queued events run: a timer when a pause is asked for, else the quickest macrotask the
 * platform has (`setImmediate` in Node, a `MessageChannel` message in browsers and workers,
 * where nested zero-delay timers are clamped to 4 ms).
 */
function yieldToLoop(ms: number): Promise<void> {
  if (ms > 0) return new Promise((resolve) => setTimeout(resolve, ms));
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (typeof immediate === 'function') return new Promise((resolve) => void immediate(resolve));
  if (typeof MessageChannel === 'function') {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(null);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export class DeferredIndex implements VectorIndex {
  readonly kind: IndexKind;
  readonly dim: number;
  private readonly pending: PendingVectors;
  private holds = 0;
  private draining: Promise<void> | null = null;
  private stopped = false;
  private drainError: unknown = null;
  private waiters: (() => void)[] = [];
  private readonly chunkSize: number;
  private readonly sliceMs: number;
  private readonly pauseMs: number;
  private readonly maxPending: number;
  /** Larger caps asked for by current holds (a sync's first pull), each in vectors. */
  private readonly heldCaps: number[] = [];
  /** Called each time the pending set empties after deferred work (the owner persists a snapshot then). */
  onDrained: (() => void) | undefined;

  constructor(
    readonly inner: VectorIndex,
    options: DeferredIndexOptions = {},
  ) {
    this.kind = inner.kind;
    this.dim = inner.dim;
    this.chunkSize = Math.max(1, Math.floor(options.chunkSize ?? 32));
    this.sliceMs = Math.max(0, options.sliceMs ?? 12);
    this.pauseMs = Math.max(0, options.pauseMs ?? 0);
    this.maxPending = Math.max(1, Math.floor(options.maxPending ?? (32 * 2 ** 20) / (4 * inner.dim)));
    this.pending = new PendingVectors(inner.dim, options.compact ?? inner.approximate === true);
  }

  /** Whether the wrapped index's similarities are approximate (pending ones are as approximate). */
  get approximate(): boolean {
    return this.inner.approximate === true;
  }

  /** Vectors searchable by exact scan, not yet in the wrapped index. */
  get pendingCount(): number {
    return this.pending.size;
  }

  size(): number {
    return this.inner.size() + this.pending.size;
  }

  has(label: number): boolean {
    return this.pending.has(label) || this.inner.has(label);
  }

  add(labels: number[], vectors: Float32Array[]): void {
    this.addNow(labels, vectors);
  }

  /** Makes the vectors searchable now and inserts them into the wrapped index later. */
  addDeferred(labels: number[], vectors: Float32Array[]): void {
    if (this.inner.kind === 'exact' || this.stopped) {
      this.addNow(labels, vectors);
      return;
    }
    // Everything is checked before anything is recorded: a bad batch adds nothing.
    if (!Array.isArray(labels) || !Array.isArray(vectors) || labels.length !== vectors.length) {
      throw new MemoryError('INVALID_ARGUMENT', 'labels and vectors must be arrays of the same length', { field: 'vectors' });
    }
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i];
      if (typeof label !== 'number' || !Number.isInteger(label) || label < 0 || label > 0xffff_ffff) {
        throw new MemoryError('INVALID_ARGUMENT', `labels must be integers in [0, ${0xffff_ffff}]`, { field: 'labels', label: String(label) });
      }
      const vector = vectors[i];
      if (!(vector instanceof Float32Array)) throw new MemoryError('INVALID_ARGUMENT', 'vectors must be Float32Arrays', { field: 'vectors', index: i });
      if (vector.length !== this.dim) {
        throw new MemoryError('DIMENSION_MISMATCH', `Vector ${i} has ${vector.length} dimensions; the index has ${this.dim}`, {
          expected: this.dim,
          actual: vector.length,
          index: i,
        });
      }
      if (!Number.isFinite(dot(vector, 0, vector, vector.length))) {
        throw new MemoryError('INVALID_ARGUMENT', 'vectors must contain only finite numbers', { field: 'vectors', index: i });
      }
    }
    const stale = labels.filter((label) => this.inner.has(label));
    if (stale.length) this.inner.remove(stale);
    for (let i = 0; i < labels.length; i++) {
      this.pending.set(labels[i]!, vectors[i]!); // a re-added label moves to the back of the queue
    }
    // Bounded memory: what exceeds the cap goes into the graph now, oldest first.
    const cap = Math.max(this.maxPending, ...this.heldCaps);
    if (this.pending.size > cap) this.insert(this.pending.size - cap);
    this.kick();
  }

  private addNow(labels: number[], vectors: Float32Array[]): void {
    this.inner.add(labels, vectors); // validates the batch first: a bad one changes nothing
    for (const label of labels) this.pending.delete(label);
    if (this.pending.size === 0) this.settled();
  }

  remove(labels: number[]): void {
    const rest: number[] = [];
    for (const label of labels) if (!this.pending.delete(label)) rest.push(label);
    if (rest.length) this.inner.remove(rest);
    if (this.pending.size === 0) this.settled();
  }

  search(query: Float32Array, k: number, filter?: (label: number) => boolean): IndexHit[] {
    const graph = this.inner.search(query, k, filter);
    if (this.pending.size === 0) return graph;
    const want = Math.floor(Math.min(k, Number.MAX_SAFE_INTEGER));
    if (!(want >= 1)) return graph;
    const qInv = inverseNorm(query);
    const hits: IndexHit[] = graph.slice();
    this.pending.scan(query, qInv, filter, (label, similarity) => hits.push({ label, similarity }));
    hits.sort((a, b) => b.similarity - a.similarity || a.label - b.label);
    if (hits.length > want) hits.length = want;
    return hits;
  }

  clear(): void {
    this.pending.clear();
    this.inner.clear();
    this.settled();
  }

  /** Refuses while vectors are pending: a snapshot must hold everything up to its generation. */
  async saveSnapshot(generation: number): Promise<boolean> {
    if (this.pending.size > 0) return false;
    return this.inner.saveSnapshot(generation);
  }

  async loadSnapshot(options?: { onProgress?: (done: number, total: number) => void }): Promise<number | null> {
    this.pending.clear();
    return this.inner.loadSnapshot(options);
  }

  dropSnapshot(): Promise<void> {
    return this.inner.dropSnapshot();
  }

  dispose(): void {
    this.stop();
    this.pending.clear();
    this.settled();
    this.inner.dispose();
  }

  /**
   * Holds the background drain (an import holds it while it writes, so the graph work does not
   * compete with the import); call the returned function to release the hold. `pendingBytes`
   * raises the pending cap while held (a sync's first pull of many documents stays off the
   * graph until it is done, within that many bytes of float32 vectors: compact ones hold a
   * quarter of that); the cap is back on release.
   */
  hold(pendingBytes?: number): () => void {
    this.holds += 1;
    const cap = pendingBytes === undefined ? null : Math.max(1, Math.floor(pendingBytes / (4 * this.dim)));
    if (cap !== null) this.heldCaps.push(cap);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      if (cap !== null) this.heldCaps.splice(this.heldCaps.indexOf(cap), 1);
      this.kick();
    };
  }

  /**
   * Resolves once nothing is pending (at once when nothing is), or once the drain can no
   * longer finish: stopped for good (`stop`), or the wrapped index refused an insertion (what
   * is pending then stays searchable by exact scan and is never snapshotted).
   */
  whenDrained(): Promise<void> {
    if (this.pending.size === 0 || this.stopped || this.drainError !== null) return Promise.resolve();
    this.kick();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops the background drain for good (the store is closing); what is pending stays searchable. */
  stop(): void {
    this.stopped = true;
    this.settled();
  }

  /** Moves the `count` oldest pending vectors into the wrapped index. */
  private insert(count: number): void {
    const labels: number[] = [];
    const vectors: Float32Array[] = [];
    for (const label of this.pending.labels()) {
      if (labels.length >= count) break;
      labels.push(label);
      vectors.push(this.pending.vector(label));
    }
    this.inner.add(labels, vectors);
    for (const label of labels) this.pending.delete(label);
  }

  private kick(): void {
    if (this.draining || this.stopped || this.holds > 0 || this.pending.size === 0 || this.drainError !== null) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.pending.size > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        await yieldToLoop(this.pauseMs);
        if (this.stopped || this.holds > 0) return;
        const start = performance.now();
        do this.insert(this.chunkSize);
        while (this.pending.size > 0 && performance.now() - start < this.sliceMs);
      }
      this.settled();
      this.onDrained?.();
    } catch (error) {
      // The wrapped index refused (disposed, out of memory): what is pending stays searchable by
      // exact scan and is never snapshotted, so the next open replays it from storage.
      this.drainError = error;
      this.settled();
    }
  }

  /** Wakes `whenDrained` callers once nothing is pending, or when the drain can no longer finish. */
  private settled(): void {
    if (this.pending.size > 0 && !this.stopped && this.drainError === null) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
