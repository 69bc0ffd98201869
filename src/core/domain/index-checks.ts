/**
 * The argument checks of the `VectorIndex` port, shared by every implementation so that they
 * all fail alike (same codes, same fields) on a bad label, batch or query.
 */
import { invalid, MemoryError } from '../errors.ts';

/** Largest label either index accepts: hnswlib-wasm binds labels as `uint32_t`. */
export const MAX_LABEL = 0xffff_ffff;

/** Validates an `add` batch; shared by both index implementations so they fail alike. */
export function checkBatch(labels: readonly number[], vectors: readonly Float32Array[], dim: number): void {
  if (!Array.isArray(labels) || !Array.isArray(vectors)) {
    throw invalid('labels and vectors must be arrays', { field: 'labels' });
  }
  if (labels.length !== vectors.length) {
    throw invalid('labels and vectors must have the same length', {
      field: 'vectors',
      labels: labels.length,
      vectors: vectors.length,
    });
  }
  for (let i = 0; i < labels.length; i++) {
    checkLabel(labels[i]);
    const v = vectors[i];
    if (!(v instanceof Float32Array)) throw invalid('vectors must be Float32Arrays', { field: 'vectors', index: i });
    if (v.length !== dim) {
      throw new MemoryError('DIMENSION_MISMATCH', `Vector ${i} has ${v.length} dimensions; the index has ${dim}`, {
        expected: dim,
        actual: v.length,
        index: i,
      });
    }
    for (let j = 0; j < dim; j++) {
      if (!Number.isFinite(v[j]!)) throw invalid('vectors must contain only finite numbers', { field: 'vectors', index: i });
    }
  }
}

export function checkLabel(label: unknown): asserts label is number {
  if (typeof label !== 'number' || !Number.isInteger(label) || label < 0 || label > MAX_LABEL) {
    throw invalid(`labels must be integers in [0, ${MAX_LABEL}]`, { field: 'labels', label: String(label) });
  }
}

/** Validates a query; returns the effective k (0 means "nothing to do"). */
export function checkQuery(query: Float32Array, k: number, dim: number): number {
  if (!(query instanceof Float32Array)) throw invalid('query must be a Float32Array', { field: 'query' });
  if (query.length !== dim) {
    throw new MemoryError('DIMENSION_MISMATCH', `Query has ${query.length} dimensions; the index has ${dim}`, {
      expected: dim,
      actual: query.length,
    });
  }
  if (typeof k !== 'number' || Number.isNaN(k)) throw invalid('k must be a number', { field: 'k' });
  return k >= 1 ? Math.floor(Math.min(k, Number.MAX_SAFE_INTEGER)) : 0;
}
