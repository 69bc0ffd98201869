/**
 * What the tables hold: the row shapes, the fields derived from a memory for its indexes, and
 * the stored form of a vector. Pure.
 */
import { lexicalFields } from '../domain/lexical-index.ts';
import { fromHalf, toHalf } from '../domain/half-float.ts';
import type { Memory } from '../types.ts';

export interface MemoryRow extends Memory {
  label: number;
  /** Distinct lexical terms of the text: a multi-entry index, the persistent inverted index. */
  terms: string[];
  /** Occurrences of each term in `terms`, aligned. */
  termCounts: number[];
  /** Total number of terms (the BM25 document length). */
  termLength: number;
  /** Distinct link targets: a multi-entry index, so incoming links are an index lookup. */
  linkTargets: string[];
  /** Set on a superseded memory whose pin moved to its superseder, so restore can hand it back. */
  pinMoved?: boolean;
  /**
   * `supersededBy`, present only when the memory is superseded: a sparse index (a row without
   * the key is left out of the index), so active memories cost it nothing (schema v11).
   */
  superseded?: string;
  /** 1, present only when the polarity is positive: the sparse index that says whether any is (v11). */
  positive?: 1;
}

/**
 * A vector as stored: binary16 codes from schema v11 on (half the bytes of float32, see
 * core/domain/half-float.ts); rows written before hold float32 and still read.
 */
export type StoredVector = Uint16Array | Float32Array;

export interface VectorRow {
  label: number;
  vector: StoredVector;
  gen: number;
}
export interface TombstoneRow {
  label: number;
  gen: number;
}
export interface StagedRow {
  embedderId: string;
  id: string;
  contentHash: string;
  vector: StoredVector;
}
/** What an import in progress changed, so it can be undone (rollback) or forgotten (commit). */
export interface ImportUndoRow {
  importId: string;
  id: string;
  /** 'inserted': the id did not exist before this import; 'overwritten': `row`/`vector` held it. */
  kind: 'inserted' | 'overwritten';
  row?: MemoryRow;
  vector?: StoredVector;
}
/** A memory moved to the trash, with its vector so a restore needs no model. */
export interface TrashRow {
  seq?: number;
  id: string;
  deletedAt: number;
  actor: string;
  memory: Memory;
  vector?: StoredVector;
}

/** The sparse index fields: present only on the memories they index (schema v11). */
export function sparseFields(memory: Pick<Memory, 'supersededBy' | 'polarity'>): Pick<MemoryRow, 'superseded' | 'positive'> {
  return {
    ...(memory.supersededBy ? { superseded: memory.supersededBy } : {}),
    ...(memory.polarity === 1 ? { positive: 1 as const } : {}),
  };
}

/** The derived, indexed fields stored beside a memory. */
export function derivedFields(memory: Memory): Pick<MemoryRow, 'terms' | 'termCounts' | 'termLength' | 'linkTargets' | 'superseded' | 'positive'> {
  return { ...lexicalFields(memory.text), linkTargets: [...new Set(memory.links.map((l) => l.to))], ...sparseFields(memory) };
}

/** A memory's row at `label`. */
export function rowOf(memory: Memory, label: number, pinMoved?: boolean): MemoryRow {
  return { ...memory, ...derivedFields(memory), label, ...(pinMoved ? { pinMoved: true } : {}) };
}

/**
 * The memory a row holds, without what storage derived: its fields by name (the compiler asks
 * for every field of `Memory`), which is several times faster than a rest copy on recall's path.
 * A row from before `surfacesWhen` reads as none.
 */
export function strip(row: MemoryRow): Memory {
  return {
    id: row.id,
    text: row.text,
    type: row.type,
    tags: row.tags,
    importance: row.importance,
    createdAt: row.createdAt,
    lastAccessed: row.lastAccessed,
    accessCount: row.accessCount,
    source: row.source,
    links: row.links,
    supersededBy: row.supersededBy,
    supersededAt: row.supersededAt,
    polarity: row.polarity,
    expiresAt: row.expiresAt,
    pinned: row.pinned,
    trust: row.trust,
    contentHash: row.contentHash,
    validFrom: row.validFrom,
    validUntil: row.validUntil,
    surfacesWhen: row.surfacesWhen ?? [],
  };
}

/** What a vector is stored as. */
export const storedVector = (vector: Float32Array): Uint16Array => toHalf(vector);
/** A stored vector as the float32 every reader gets (a float32 row, from before v11, as it is). */
export const loadedVector = (stored: StoredVector): Float32Array => (stored instanceof Uint16Array ? fromHalf(stored) : stored);

export const isDefined = <T>(value: T | undefined): value is T => value !== undefined;
