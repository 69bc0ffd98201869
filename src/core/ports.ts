/**
 * Ports: the narrow interfaces the core depends on. Adapters (Dexie, hnswlib-wasm, the
 * embedders) implement them; the core never imports a vendor.
 */
import type { ProgressEvent } from './types.ts';

export interface EmbedOptions {
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

/**
 * A text embedder. `id` names the model (recorded with the store's vectors); `dim` is the vector
 * length. `embed` returns one vector per input text, in order.
 */
export interface Embedder {
  readonly id: string;
  readonly dim: number;
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /** Release model resources. Optional. */
  dispose?(): Promise<void> | void;
}

export interface Clock {
  /** Unix seconds with fractions. */
  now(): number;
}

export interface IdSource {
  /** A new unique id (UUID v4 by default). */
  next(): string;
}

export interface IndexHit {
  label: number;
  /** Cosine similarity. */
  similarity: number;
}

/**
 * An approximate or exact nearest-neighbour index over integer labels. It is a cache: the
 * vectors table in storage is the truth, and the index can always be rebuilt from it.
 */
export interface VectorIndex {
  readonly kind: 'hnsw' | 'exact';
  readonly dim: number;
  /** Number of live (not deleted) labels. */
  size(): number;
  has(label: number): boolean;
  add(labels: number[], vectors: Float32Array[]): void;
  remove(labels: number[]): void;
  /** Best `k` by cosine similarity, best first; `filter` limits the labels considered. */
  search(query: Float32Array, k: number, filter?: (label: number) => boolean): IndexHit[];
  /** Drop everything. */
  clear(): void;
  /**
   * Persist a snapshot tagged with `generation`. Exact indexes need none (they are rebuilt
   * from storage) and return false.
   */
  saveSnapshot(generation: number): Promise<boolean>;
  /**
   * Load the persisted snapshot. Returns the generation it was saved at, or null when there is
   * none or it fails its integrity check (the caller then rebuilds).
   */
  loadSnapshot(): Promise<number | null>;
  /** Forget the persisted snapshot. */
  dropSnapshot(): Promise<void>;
  dispose(): void;
}

/** Creates a fresh index for a store; `name` keys its snapshot. */
export type VectorIndexFactory = (options: { name: string; dim: number; capacity: number }) => Promise<VectorIndex>;
