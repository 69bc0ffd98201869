/**
 * Public data types. Everything here is plain, structured-clonable data so that it crosses a
 * worker boundary unchanged. Field meanings follow AI-Houkai's `Memory` (timestamps are Unix
 * seconds with fractions, so they round-trip an `.ahkai` archive exactly).
 */

export const MEMORY_TYPES = ['episodic', 'semantic', 'procedural', 'feedback'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const TRUST_LEVELS = ['trusted', 'reported', 'untrusted'] as const;
export type Trust = (typeof TRUST_LEVELS)[number];

export type Polarity = -1 | 0 | 1;

export interface Link {
  to: string;
  rel: string;
}

export interface Memory {
  /** UUID v4 for memories created here; any string for imported ones. */
  id: string;
  /** Stripped text. */
  text: string;
  type: MemoryType;
  tags: string[];
  /** In [0, 1]. */
  importance: number;
  /** Unix seconds. */
  createdAt: number;
  lastAccessed: number;
  accessCount: number;
  source: string | null;
  links: Link[];
  /** Id of the superseding memory, `''` when active. */
  supersededBy: string;
  /** Unix seconds, 0 when never superseded. */
  supersededAt: number;
  polarity: Polarity;
  /** TTL deadline in Unix seconds, 0 = never. */
  expiresAt: number;
  pinned: boolean;
  trust: Trust;
  /** First 32 hex chars of SHA-256 of the lower-cased, whitespace-folded text. */
  contentHash: string;
  /** Valid-time interval `[validFrom, validUntil)`, 0 = unbounded. */
  validFrom: number;
  validUntil: number;
}

/** Fields a caller may set when storing or editing a memory. */
export interface MemoryInput {
  type?: MemoryType;
  tags?: string[];
  importance?: number;
  source?: string | null;
  polarity?: Polarity;
  expiresAt?: number;
  pinned?: boolean;
  trust?: Trust;
  validFrom?: number;
  validUntil?: number;
}

export interface RememberItem extends MemoryInput {
  text: string;
}

export interface Conflict {
  a: Memory;
  b: Memory;
  similarity: number;
  kind: 'duplicate' | 'contradiction';
  reason: string;
}

export interface RememberResult {
  memory: Memory;
  conflicts: Conflict[];
  action: 'stored';
}

export interface RecallOptions {
  /** Number of hits, default 5, must be > 0. */
  k?: number;
  type?: MemoryType;
  tag?: string;
  minImportance?: number;
  includeSuperseded?: boolean;
  includeExpired?: boolean;
  /** Pool multiplier for filtered search, default 4. */
  overfetch?: number;
  /** Update `lastAccessed`/`accessCount` of the hits, default true. */
  touch?: boolean;
  signal?: AbortSignal;
}

export interface RecallHit {
  memory: Memory;
  /** Cosine similarity between the query and the memory. */
  score: number;
}

export interface ListOptions {
  limit?: number;
  includeSuperseded?: boolean;
  includeExpired?: boolean;
  /** Keyset cursor: only memories created strictly before this time (Unix seconds). */
  before?: number;
}

export type ProgressEvent =
  | { kind: 'embed'; done: number; total: number }
  | { kind: 'write'; done: number; total: number }
  | { kind: 'index-rebuild'; done: number; total: number }
  | { kind: 'reindex'; done: number; total: number }
  | { kind: 'model'; status: 'initiate' | 'download' | 'progress' | 'done' | 'ready'; file?: string; loaded?: number; total?: number };

export interface LongRunOptions {
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export interface RememberManyOptions extends LongRunOptions {
  /** Items embedded and written per transaction, default 128. */
  batchSize?: number;
}

export interface StoreStats {
  name: string;
  count: number;
  active: number;
  superseded: number;
  byType: Record<MemoryType, number>;
  embedder: { id: string; dim: number };
  index: { kind: 'hnsw' | 'exact'; size: number; snapshotGeneration: number | null; generation: number };
  schemaVersion: number;
  /** Browser storage facts (persistent or not, bytes used and available), when known. */
  storage?: { persisted: boolean | null; usage: number | null; quota: number | null };
}
