/**
 * What the IndexedDB adapters (the store's storage and the registry of stores) share: where
 * IndexedDB comes from, and the one mapping of its errors (also as Dexie wraps them) to
 * `MemoryError` codes. A helper of those adapters, not an adapter: it imports no vendor.
 */
import { MemoryError } from '../core/errors.ts';

export interface IndexedDbOptions {
  /** An IndexedDB implementation (e.g. fake-indexeddb in Node); defaults to the global one. */
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
}

function errorName(error: unknown): string {
  const e = error as { name?: string; inner?: { name?: string } } | null;
  return `${e?.name ?? ''} ${e?.inner?.name ?? ''}`;
}

/** Maps vendor errors to MemoryError; passes MemoryErrors through. */
export function mapStorageError(error: unknown, operation: string): MemoryError {
  if (error instanceof MemoryError) return error;
  const names = errorName(error);
  const message = (error as Error | null)?.message ?? String(error);
  if (names.includes('QuotaExceeded')) {
    return new MemoryError('STORAGE_QUOTA', `Storage quota exceeded during ${operation}; nothing was written`, {
      operation,
    });
  }
  if (names.includes('VersionError')) {
    return new MemoryError('SCHEMA_TOO_NEW', `This store was written by a newer version of houkai-web (${message})`, {
      operation,
    });
  }
  return new MemoryError('STORAGE_FAILURE', `IndexedDB failed during ${operation}: ${message}`, { operation });
}

